// Package failover holds the test that Launchwatch survives a failover of
// its PostgreSQL under load (failover_test.go; `make test` runs it, `make test-failover` runs it
// alone):
// a primary and an asynchronous streaming standby from Debian's server
// binaries (storetest.NewPair), cmd/web as a process whose DATABASE_URL
// lists both hosts (target_session_attrs=read-write), three shippers
// streaming into it — `launchwatch ship` following a file, a native poster
// and an OTLP/HTTP poster (posters_test.go) — and a webhook receiver. The
// primary is killed mid-stream (SIGKILL to all its processes) and the
// standby promoted, once with the standby caught up (the primary dies as
// a machine losing power: every process at once) and once with it lagging
// behind writes the primary acknowledged (its WAL receiver frozen while
// the primary goes on, then its postmaster killed alone: the WAL senders
// exit at once, a backend may finish a statement first), so that
// acknowledged lines are lost and the shippers must send them again. Every line must be stored once, every
// ready webhook delivered once, and no answer may be a 5xx other than 503
// while no primary exists. docs/scale.md describes the production set-ups
// (Patroni, pg_auto_failover) this stands for.
package failover
