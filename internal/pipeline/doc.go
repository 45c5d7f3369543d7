// Package pipeline stores what the decoders (internal/decode) made of a
// request, one launch at a time, and keeps each launch's verdict current.
//
// A batch is one transaction under the launch's row lock: it numbers the
// lines and drops the ones stored already, puts them on the launch clock,
// classifies the new ones in seq order from the launch's saved classifier
// state (or, for a gap fill, from the checkpoint before the gap), COPYs
// them with their verdicts (a batch that continues its launch is
// classified and indexed in a goroutine while the COPY stores the lines
// whose verdicts are final: stream.go), applies the suppression rules in
// force to new alarms, and saves alarms, phases, status and state before it notifies
// live readers. Process events (heartbeats, health probes, exit reports)
// change the status the same way. Fatal alarms that could still change
// wait for a settle deadline; the settler (one per web process) and
// readers that cannot wait settle them.
//
// All SQL is in internal/store; the classification is internal/classify's
// and the status machine internal/status's.
package pipeline
