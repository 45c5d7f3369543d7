package live

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Listen LISTENs on channel with a connection of its own from pool and
// publishes each notification's payload (a launch key) to hub, until ctx
// ends. A lost connection is re-established with backoff; after a
// reconnect every subscriber is woken to resync, since notifications sent
// while disconnected are lost.
func Listen(ctx context.Context, pool *pgxpool.Pool, channel string, hub *Hub, log *slog.Logger) {
	backoff := 100 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		err := listenOnce(ctx, pool, channel, hub, func() {
			if !first {
				hub.WakeAll()
				log.Info("live: listening again")
			}
			first, backoff = false, 100*time.Millisecond
		})
		if ctx.Err() != nil {
			return
		}
		log.Warn("live: listen connection lost", slog.String("error", err.Error()), slog.Duration("retry_in", backoff))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func listenOnce(ctx context.Context, pool *pgxpool.Pool, channel string, hub *Hub, listening func()) error {
	pooled, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection will carry a LISTEN: take it out of the pool for good.
	conn := pooled.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		hub.Publish(n.Payload)
	}
}
