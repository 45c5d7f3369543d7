package store

import "context"

// LaunchGateFunc decides whether a request may create one more launch; it
// returns the error to answer when it may not (too many new launches).
type LaunchGateFunc func() error

type launchGateKey struct{}

// WithLaunchGate returns ctx carrying gate, which EnsureLaunch asks before
// it creates a launch (never for one that exists). The web layer sets it
// per request, because only it knows who is asking; every ingest path
// (lines, Loki, OTLP, heartbeat, health, exit) creates launches through
// EnsureLaunch, so one gate covers them all.
func WithLaunchGate(ctx context.Context, gate LaunchGateFunc) context.Context {
	return context.WithValue(ctx, launchGateKey{}, gate)
}

// admitNewLaunch asks ctx's gate, if any, for one more launch.
func admitNewLaunch(ctx context.Context) error {
	if gate, ok := ctx.Value(launchGateKey{}).(LaunchGateFunc); ok && gate != nil {
		return gate()
	}
	return nil
}
