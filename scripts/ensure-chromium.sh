#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed: the browser tests drive it
# headless through chromedp. Installs the package when running as root;
# otherwise says what to do.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "Chromium not found: install it (Debian: sudo apt-get install chromium) for the browser tests" >&2
	exit 1
fi
echo "Installing Debian's chromium package (headless browser for the browser tests)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
[ -x /usr/bin/chromium ] || { echo "chromium installed but /usr/bin/chromium is missing" >&2; exit 1; }
