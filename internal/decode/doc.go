// Package decode turns what a client sends into lines and launch
// attributes, and holds the one copy of every input rule: the native body
// formats (text, NDJSON, JSON arrays), the Loki push API (JSON and
// snappy-compressed protobuf), OTLP/HTTP logs, body reading with its
// decompression and size limits, line cleaning (UTF-8, NUL, length),
// duplicate keys of seqless lines, and the rules for launch keys, server
// kinds, labels, seqs and time zones that the HTTP handlers check their
// parameters with.
//
// It does no I/O beyond reading a request body and knows nothing of the
// database: a decoded batch goes to the launch pipeline
// (internal/pipeline), which stores it. Every rejection is an InputError
// carrying the 4xx status and a message that says what was wrong.
package decode
