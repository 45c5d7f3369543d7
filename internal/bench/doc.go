// Package bench holds `make bench`'s ratios (ratios_bench_test.go): each
// figure of Launchwatch beside an anchor measured in the same run on the
// same machine (a raw COPY, grep, an in-order batch, the log's own size),
// so that a busy or slow machine changes both and the ratio stays
// comparable.
package bench
