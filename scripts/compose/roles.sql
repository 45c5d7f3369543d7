-- Run by the postgres image when it creates its data volume
-- (docker-entrypoint-initdb.d), as POSTGRES_USER, the owner of the
-- launchwatch database: the role the web server serves requests as, a login
-- role of its own. The server, connected as the owner (DATABASE_OWNER_URL),
-- migrates and grants it only what serving needs: it cannot change the
-- audit log (README "Database roles"). The owner is a member of it, to hand
-- it the line tables it makes partitions of.
CREATE ROLE launchwatch_app LOGIN PASSWORD 'launchwatch_app';
GRANT launchwatch_app TO launchwatch;
