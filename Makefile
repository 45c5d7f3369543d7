# Launchwatch. The two commands a newcomer needs: `make run` and `make test`.
GO ?= go
ARGS ?=

.PHONY: run test test-failover test-deps lint bench bench-scale bench-all pgo build postgres chromium clients otelcol generate screenshot clean

## build: compile cmd/web and cmd/launchwatch into ./bin
build:
	$(GO) build -o bin/web ./cmd/web
	$(GO) build -o bin/launchwatch ./cmd/launchwatch

## run: build and serve on 127.0.0.1:8080 (a private PostgreSQL in ./.data unless DATABASE_URL is set)
run: postgres build
	./bin/web $(ARGS)

## test: every test under the race detector, against real PostgreSQL (a throwaway cluster unless
## TEST_DATABASE_URL is set); its prerequisites install what the tests drive (go test installs nothing)
test: test-deps
	$(GO) test $(RACE) -count=1 -timeout 20m ./...

# RACE is the race detector, on by default (CI runs make test); RACE= turns it off
RACE ?= -race

## test-failover: the failover test alone (internal/failover, part of make test too): a primary and
## a standby, the primary killed, the standby promoted, caught up and lagging; 0 lost, 0 doubled,
## each webhook once (docs/scale.md)
test-failover: test-deps
	$(GO) test $(RACE) -count=1 -timeout 10m ./internal/failover/

## test-deps: PostgreSQL, Chromium and the real log shippers the tests drive
test-deps: postgres chromium clients otelcol

## lint: gofmt, go vet and staticcheck must be clean
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@# the CLI goes onto GPU hosts: it links no database driver, migration tool or store
	@linked=$$($(GO) list -deps ./cmd/launchwatch | grep -E 'pgx|goose|launchwatch/migrations|internal/store$$'); \
	if [ -n "$$linked" ]; then echo "cmd/launchwatch links database code:"; echo "$$linked"; exit 1; fi

## bench: the cost model in one run — every ratio beside its anchor and target (ingest vs raw COPY,
## classification vs grep, POST → websocket on another node, ingest with 1,000 live followers vs none
## and the 10,000-follower figure, gap fill vs in-order batch, stored bytes per log byte;
## LWBENCH_LINES sizes it), then the page budgets; figures, not pass/fail
## (compiled with cmd/web/default.pgo, as `make build` compiles the server)
bench: postgres
	$(GO) test $(PGO) -run '^$$' -bench '^BenchmarkRatios$$' -benchtime 1x -count=1 -timeout 30m ./internal/bench/
	$(GO) test $(PGO) -run '^$$' -bench '^BenchmarkBudgets$$' -benchtime 1x -count=1 -timeout 30m ./internal/web/

## bench-scale: the scale bench (internal/bench BenchmarkScale): 10M lines over 1000 launches of
## random sizes from the corpus and testdata/families, then the list, launch page (cold and warm),
## log page, search and compare p95, retention's cost per launch dropped and storage per byte of
## log; LWBENCH_SCALE_LINES (and LWBENCH_SCALE_LAUNCHES) size it down. Not part of make test;
## bench-all runs it at 100,000 lines
bench-scale: postgres
	LWBENCH_SCALE=1 $(GO) test $(PGO) -run '^$$' -bench '^BenchmarkScale$$' -benchtime 1x -count=1 -timeout 180m ./internal/bench/

# PGO is the profile `go build ./cmd/web` compiles the server with by itself (default.pgo in the
# main package's directory); benchmarks of other packages are given it explicitly
PGO = -pgo=$(CURDIR)/cmd/web/default.pgo

## pgo: refresh cmd/web/default.pgo from the classifier and ingest benchmarks
pgo: postgres
	GO=$(GO) ./scripts/profile-pgo.sh

## bench-all: every benchmark of every package
bench-all: postgres
	$(GO) test $(PGO) -run '^$$' -bench . -benchmem -count=1 -timeout 60m ./...

postgres:
	@./scripts/ensure-postgres.sh

# chromium: the browser tests drive Debian's headless Chromium
chromium:
	@./scripts/ensure-chromium.sh

# clients: the real log shippers the ingest tests drive (syslog-ng from
# Debian; pino-loki and the OpenTelemetry logs exporter from npm)
clients:
	@./scripts/ensure-test-clients.sh

# otelcol: the OpenTelemetry Collector the Collector test drives, built from
# scripts/otelcol/builder.yaml with the Collector Builder from the Go module
# proxy; cached in the user cache directory until the manifest changes
otelcol:
	@GO=$(GO) ./scripts/ensure-otelcol.sh

## screenshot: regenerate the README's pictures (docs/*.png) in headless Chromium, each taken by the
## browser test that shows what it pictures (web_test's readmeShot)
screenshot: postgres chromium
	LAUNCHWATCH_SCREENSHOTS=$(CURDIR)/docs $(GO) test -count=1 -run '$(SCREENSHOT_TESTS)' ./internal/web/

SCREENSHOT_TESTS = ^(TestBrowser|TestBrowserIncident|TestBrowserLaunchVerdict|TestBrowserViewerControls|TestBrowserLogReading|TestBrowserCompareEvents|TestBrowserOneClockPerView|TestBrowserTimelineLabels)$$/^ConfirmAlarmMakesLaunchCrashed$$

## generate: regenerate the templ views (internal/views/*_templ.go) and the log text's 256-colour
## classes (static/term256.css), both committed
generate:
	$(GO) tool templ generate -path internal/views
	$(GO) run ./scripts/term256css > static/term256.css

clean:
	rm -rf bin
