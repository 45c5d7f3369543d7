#!/usr/bin/env bash
# Makes sure PostgreSQL server binaries are installed: the web server and the
# tests run a private cluster with them when DATABASE_URL is unset. Installs
# Debian's postgresql package when running as root; otherwise says what to do.
set -euo pipefail

have_binaries() {
	command -v initdb >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/postgres" ] && [ -x "$d/pg_ctl" ] && return 0
	done
	return 1
}

if [ -n "${DATABASE_URL:-}" ] || have_binaries; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "PostgreSQL server binaries not found: install them (Debian/Ubuntu: sudo apt-get install postgresql)" >&2
	echo "or set DATABASE_URL to a PostgreSQL you already run." >&2
	exit 1
fi
echo "Installing Debian's postgresql package (server binaries for the private cluster)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql >/dev/null
have_binaries || { echo "postgresql installed but no server binaries found" >&2; exit 1; }
