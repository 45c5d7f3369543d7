// Package pgserver runs a private PostgreSQL cluster: for the web server when DATABASE_URL is unset,
// and for tests (one throwaway cluster per test process).
//
// The cluster listens only on a unix socket, so it never conflicts with another PostgreSQL on the
// machine and is never reachable from the network. Authentication is "trust" over that socket,
// which is safe because the socket directory belongs to the server user.
//
// PostgreSQL refuses to run as root. When the process is root, initdb and postgres run as the
// unprivileged "postgres" user that Debian's package creates. That user must be able to reach the
// cluster directory; when a parent of Config.DataDir is not traversable (a checkout under a 0700
// /root, or a t.TempDir, whose top directory is 0700), the cluster moves to FallbackDir(DataDir)
// under FallbackRoot and DataDir/pg becomes a symlink to it.
//
// Start guards each cluster with a lock file so two processes never manage the same cluster. A
// postmaster left running by a process that died (SIGKILL) is stopped and replaced; a
// postmaster.pid whose PID is dead or now belongs to an unrelated process is removed. See
// clearStalePostmaster.
package pgserver
