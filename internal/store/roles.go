package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Two database roles keep the audit log out of reach of the role that
// serves requests: the owner role owns the schema and runs the migrations;
// the app role, a login role of its own (SET ROLE would not do: RESET ROLE
// undoes it), serves requests with the grants GrantApp gives it: it may
// insert and read audit events but not change, delete or truncate them,
// and it owns no table but the line tables, whose partitions it makes,
// drops and vacuums itself. The owner role is a member of the app role (it
// runs migrations on those tables and hands them over); never the other way
// round.

// Private cluster role names (cmd/web's own PostgreSQL).
const (
	PrivateOwnerRole = "launchwatch_owner"
	PrivateAppRole   = "launchwatch_app"
)

// lineTables are the tables the app role owns: partitioned by launch, their
// partitions made by ingest, dropped by retention and vacuumed by
// compaction, all of which only a table's owner may do.
const lineTablesPattern = `^(lines|line_keys|line_blocks)(_p[0-9]+)?$`

// PrepareRoles, connected to the database as a superuser (the private
// cluster's), makes the owner and app login roles unless they exist, makes
// owner a member of app, and gives owner the database, its public schema
// and every object in it that the superuser owns (the schema a server
// without roles migrated as the superuser). Run it before migrating as
// owner.
func PrepareRoles(ctx context.Context, superConn, owner, app string) error {
	conn, err := pgx.Connect(ctx, superConn)
	if err != nil {
		return fmt.Errorf("store: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, role := range []string{owner, app} {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
				return err
			}
			verb := "ALTER"
			if !exists {
				verb = "CREATE"
			}
			if _, err := tx.Exec(ctx, verb+` ROLE `+ident(role)+` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`); err != nil {
				return err
			}
		}
		var db string
		if err := tx.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
			return err
		}
		for _, sql := range []string{
			`REVOKE ` + ident(owner) + ` FROM ` + ident(app), // never the app a member of the owner
			`GRANT ` + ident(app) + ` TO ` + ident(owner),
			`ALTER DATABASE ` + ident(db) + ` OWNER TO ` + ident(owner),
			`ALTER SCHEMA public OWNER TO ` + ident(owner),
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return err
			}
		}
		return adoptObjects(ctx, tx, owner)
	})
	if err != nil {
		return fmt.Errorf("store: prepare the database roles: %w", err)
	}
	return nil
}

// adoptObjects gives owner the tables, views, sequences (but those of a
// table's column, which go with it), functions and types of the public
// schema that the connected role owns; members of extensions stay theirs.
func adoptObjects(ctx context.Context, tx pgx.Tx, owner string) error {
	rows, err := tx.Query(ctx, `
		SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
			WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass::text
		FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
			AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
				AND (d.deptype = 'e' OR c.relkind = 'S' AND d.deptype IN ('a', 'i')))
		UNION ALL
		SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, p.oid::regprocedure::text
		FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
		UNION ALL
		SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype::text
		FROM pg_type t
		WHERE t.typnamespace = 'public'::regnamespace AND t.typowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			AND (t.typtype IN ('e', 'd', 'r', 'm') OR t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
			AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')`)
	if err != nil {
		return err
	}
	type object struct{ kind, name string }
	objs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (object, error) {
		var o object
		return o, r.Scan(&o.kind, &o.name)
	})
	if err != nil {
		return err
	}
	for _, o := range objs {
		// The names come from the catalog, already quoted as needed.
		if _, err := tx.Exec(ctx, `ALTER `+o.kind+` `+o.name+` OWNER TO `+ident(owner)); err != nil {
			return fmt.Errorf("%s %s: %w", o.kind, o.name, err)
		}
	}
	return nil
}

// GrantApp, on a pool of the owner role after it migrated the schema,
// gives app what serving requests needs: reading and writing the tables
// but the audit log and its chain (only SELECT and INSERT on audit_events,
// SELECT on audit_chain and the migrations' table), their sequences, CREATE
// on the schema for the line partitions, and the line tables themselves. It
// is idempotent; web processes starting at once take turns.
func GrantApp(ctx context.Context, ownerPool *pgxpool.Pool, app string) error {
	err := pgx.BeginFunc(ctx, ownerPool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('launchwatch.grants'))`); err != nil {
			return err
		}
		var member bool
		if err := tx.QueryRow(ctx, `SELECT pg_has_role(current_user, $1, 'USAGE')`, app).Scan(&member); err != nil {
			return err
		}
		if !member {
			return fmt.Errorf("the owner role must be a member of the app role %s, to hand it the line tables it makes partitions of: GRANT %s TO the owner role", app, ident(app))
		}
		var appOwns bool
		if err := tx.QueryRow(ctx, `SELECT pg_has_role($1, current_user, 'MEMBER')`, app).Scan(&appOwns); err != nil {
			return err
		}
		if appOwns {
			return fmt.Errorf("the app role %s must not be a member of the owner role (it could then change the audit log): REVOKE the owner role FROM %s", app, ident(app))
		}
		a := ident(app)
		for _, sql := range []string{
			`GRANT USAGE, CREATE ON SCHEMA public TO ` + a,
			`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ` + a,
			`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ` + a,
			`REVOKE ALL ON audit_events, audit_chain, goose_db_version FROM ` + a,
			`GRANT SELECT, INSERT ON audit_events TO ` + a,
			`GRANT SELECT ON audit_chain, goose_db_version TO ` + a,
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		rows, err := tx.Query(ctx, `SELECT c.oid::regclass::text FROM pg_class c
			WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname ~ $1
				AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = $2)
			ORDER BY c.relkind DESC, c.relname`, lineTablesPattern, app) // parents first
		if err != nil {
			return err
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, t := range tables {
			if _, err := tx.Exec(ctx, `ALTER TABLE `+t+` OWNER TO `+a); err != nil {
				return fmt.Errorf("hand %s to %s: %w", t, app, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: grant the app role its privileges: %w", err)
	}
	return nil
}

// CurrentRole is the role pool's connections act as.
func CurrentRole(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	var role string
	err := pool.QueryRow(ctx, `SELECT current_user`).Scan(&role)
	return role, wrapErr("current role", err)
}

// MayChangeAuditLog reports whether pool's role could change the audit
// log (it owns it, is a member of its owner, or is a superuser): then the
// log's hash chain is all that shows an edit.
func MayChangeAuditLog(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var may bool
	err := pool.QueryRow(ctx, `SELECT pg_has_role(current_user, c.relowner, 'MEMBER') OR r.rolsuper
		FROM pg_class c, pg_roles r WHERE c.oid = 'audit_events'::regclass AND r.rolname = current_user`).Scan(&may)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // no audit_events: not migrated (--migrate=false)
		return false, nil
	}
	return may, wrapErr("audit log privileges", err)
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }
