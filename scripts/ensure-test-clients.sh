#!/usr/bin/env bash
# Makes sure the real log shippers the ingest tests drive are installed:
# Debian's syslog-ng with its HTTP destination, and the npm packages in
# testdata/clients (pino-loki, the OpenTelemetry logs SDK and OTLP/HTTP
# exporter), pinned by the committed package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/sbin/syslog-ng ] || ! compgen -G "/usr/lib/syslog-ng/*/libhttp.so" >/dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "syslog-ng not found: install it (Debian: sudo apt-get install syslog-ng-core syslog-ng-mod-http) for the shipper tests" >&2
		exit 1
	fi
	echo "Installing Debian's syslog-ng-core and syslog-ng-mod-http (a real shipper for the ingest tests)..." >&2
	export DEBIAN_FRONTEND=noninteractive
	# Keep the package from starting a system-wide daemon: the tests run
	# their own instance with their own config.
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends syslog-ng-core syslog-ng-mod-http >/dev/null
fi

if ! command -v npm >/dev/null; then
	echo "npm not found: install Node.js 20 or later for the shipper tests" >&2
	exit 1
fi
dir=testdata/clients
# npm ci only when the installed tree is not the one the lock file pins.
if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.ci" 2>/dev/null; then
	echo "Installing the npm shipper clients in $dir..." >&2
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
	cp "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.ci"
fi
