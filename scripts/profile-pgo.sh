#!/bin/sh
# profile-pgo.sh writes cmd/web/default.pgo, the CPU profile Go's
# profile-guided optimisation compiles the server with (`go build ./cmd/web`
# picks it up by itself; `make bench` passes it so its figures are for the
# server as built). It merges the two hot paths of a web process: the
# classifier on the shared corpus mix (BenchmarkFeed) and the ingest API end
# to end, HTTP to COPY (make bench's ingest run). Refresh it after changing
# either (`make pgo`); a stale profile only costs some of the gain.
set -eu
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO test -run '^$' -bench 'BenchmarkFeed/Corpus$' -benchtime 5s -count=1 \
	-cpuprofile "$tmp/feed.prof" -o "$tmp/classify.test" ./internal/classify/ >/dev/null
LWBENCH_ONLY=ingest $GO test -run '^$' -bench '^BenchmarkRatios$' -benchtime 1x -count=1 \
	-cpuprofile "$tmp/ingest.prof" -o "$tmp/bench.test" ./internal/bench/ >/dev/null
$GO tool pprof -proto "$tmp/feed.prof" "$tmp/ingest.prof" >cmd/web/default.pgo
echo "wrote cmd/web/default.pgo ($(wc -c <cmd/web/default.pgo) bytes)"
