#!/usr/bin/env bash
# Builds the OpenTelemetry Collector that the Collector test drives
# (contrib's filelog receiver, the otlphttp exporter, the bearertokenauth
# extension: scripts/otelcol/builder.yaml) with the OpenTelemetry Collector
# Builder, fetched from the Go module proxy like any module. The binary is
# cached in the user cache directory under a key of the manifest, the
# builder's version and the Go toolchain, so it is built once per machine
# (several minutes on 2 cores) and again only when one of them changes; Go's
# module and build caches make a rebuild cheaper still.
#
#   scripts/ensure-otelcol.sh          build it unless the cache holds it
#   scripts/ensure-otelcol.sh --path   print where the binary is (or would be); builds nothing
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
builder=go.opentelemetry.io/collector/cmd/builder@v0.165.0
manifest=scripts/otelcol/builder.yaml
key=$({ cat "$manifest"; echo "$builder"; "$GO" env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
cache=${cache:-$PWD/.cache}/launchwatch/otelcol
dir=$cache/$key
bin=$dir/build/otelcol-launchwatch

if [ "${1:-}" = --path ]; then
	echo "$bin"
	exit 0
fi
if [ -x "$bin" ]; then
	exit 0
fi

echo "Building the OpenTelemetry Collector for the Collector test with $builder (once per manifest; minutes on 2 cores)..." >&2
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$manifest" "$tmp/builder.yaml"
start=$SECONDS
# The builder writes the distribution's sources into build/, then runs
# go mod tidy and go build there. Its log goes to a file, shown on failure.
if ! (cd "$tmp" && "$GO" run "$builder" --config builder.yaml) >"$tmp/builder.log" 2>&1; then
	cat "$tmp/builder.log" >&2
	echo "building the OpenTelemetry Collector failed (log above)" >&2
	exit 1
fi
"$tmp/build/otelcol-launchwatch" --version >&2
# Only a complete build is cached: it takes its place in one rename. Builds
# of other manifests are removed (each is ~100 MB), and builds that died
# (an hour old); another build running meanwhile keeps its directory.
for old in "$cache"/*; do
	case "$old" in
	"$tmp" | "$dir") ;;
	"$cache"/tmp.*) find "$old" -maxdepth 0 -mmin +60 -exec rm -rf {} + ;;
	*) rm -rf "$old" ;;
	esac
done
rm -rf "$dir"
mv -T "$tmp" "$dir"
trap - EXIT
echo "Built the OpenTelemetry Collector in $((SECONDS - start)) s: $bin" >&2
