package incident

import (
	"context"
	"errors"
	"strconv"

	"launchwatch/internal/store"
)

// launchIDs resolves launch keys; a key naming no launch is the client's
// mistake, reported under field.
func launchIDs(ctx context.Context, st *store.Store, field string, keys []string) (map[string]int64, error) {
	ids := make(map[string]int64, len(keys))
	for _, k := range keys {
		l, err := st.LaunchByKey(ctx, k)
		if errors.Is(err, store.ErrNotFound) {
			return nil, &InvalidError{Fields: map[string]string{field: strconv.Quote(k) + " is no launch"}}
		}
		if err != nil {
			return nil, err
		}
		ids[k] = l.ID
	}
	return ids, nil
}

// Open stores a new incident, investigating, with its launches, attributed
// to actor, and returns its id.
func Open(ctx context.Context, st *store.Store, n New, actor string) (int64, error) {
	if err := n.Validate(); err != nil {
		return 0, err
	}
	ids, err := launchIDs(ctx, st, "launches", n.Launches)
	if err != nil {
		return 0, err
	}
	var id int64
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if id, err = tx.CreateIncident(ctx, n.Title, n.Severity, n.Owner, actor); err != nil {
			return err
		}
		for _, k := range n.Launches {
			if _, err := tx.AddIncidentLaunch(ctx, id, ids[k], actor); err != nil {
				return err
			}
		}
		if err := tx.AddIncidentWebhookEvent(ctx, id, "opened"); err != nil {
			return err
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "incident.create", Subject: Subject(id),
			Detail: map[string]any{"title": n.Title, "severity": n.Severity, "owner": n.Owner, "launches": n.Launches}})
	})
	return id, err
}

// Apply makes a change to incident id: fields, status (recorded with who
// and when) and launches added or removed, in one transaction with one
// audit event per kind of change. ErrNotFound when there is no incident.
func Apply(ctx context.Context, st *store.Store, id int64, c Change, actor string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	add, err := launchIDs(ctx, st, "add_launches", c.AddLaunches)
	if err != nil {
		return err
	}
	remove, err := launchIDs(ctx, st, "remove_launches", c.RemoveLaunches)
	if err != nil {
		return err
	}
	return st.WithTx(ctx, func(tx *store.Tx) error {
		inc, err := tx.LockIncident(ctx, id)
		if err != nil {
			return err
		}
		audit := func(action string, detail map[string]any) error {
			return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: action, Subject: Subject(id), Detail: detail})
		}
		if err := applyFields(inc, c, audit); err != nil {
			return err
		}
		if c.Status != nil && *c.Status != inc.Status {
			if err := audit("incident.status", map[string]any{"from": inc.Status, "to": *c.Status}); err != nil {
				return err
			}
			inc.Status = *c.Status
			if err := tx.AddIncidentStatus(ctx, id, inc.Status, actor); err != nil {
				return err
			}
			if inc.Status == "resolved" {
				if err := tx.AddIncidentWebhookEvent(ctx, id, "resolved"); err != nil {
					return err
				}
			}
		}
		if err := tx.UpdateIncident(ctx, inc); err != nil {
			return err
		}
		return changeLaunches(ctx, tx, id, c, add, remove, actor, audit)
	})
}

// applyFields copies the edited fields to inc and audits those that changed.
func applyFields(inc *store.Incident, c Change, audit func(string, map[string]any) error) error {
	changed := map[string]any{}
	set := func(name string, dst *string, src *string) {
		if src != nil && *src != *dst {
			changed[name] = map[string]any{"from": *dst, "to": *src}
			*dst = *src
		}
	}
	set("title", &inc.Title, c.Title)
	set("severity", &inc.Severity, c.Severity)
	set("owner", &inc.Owner, c.Owner)
	set("summary", &inc.Summary, c.Summary)
	set("root_cause", &inc.RootCause, c.RootCause)
	set("resolution", &inc.Resolution, c.Resolution)
	if len(changed) == 0 {
		return nil
	}
	return audit("incident.update", changed)
}

func changeLaunches(ctx context.Context, tx *store.Tx, id int64, c Change, add, remove map[string]int64,
	actor string, audit func(string, map[string]any) error) error {
	for _, k := range c.AddLaunches {
		added, err := tx.AddIncidentLaunch(ctx, id, add[k], actor)
		if err == nil && added {
			err = audit("incident.launch_add", map[string]any{"launch": k})
		}
		if err != nil {
			return err
		}
	}
	for _, k := range c.RemoveLaunches {
		removed, err := tx.RemoveIncidentLaunch(ctx, id, remove[k])
		if err == nil && removed {
			err = audit("incident.launch_remove", map[string]any{"launch": k})
		}
		if err != nil {
			return err
		}
	}
	if len(c.AddLaunches) == 0 {
		return nil
	}
	n, err := tx.CountIncidentLaunches(ctx, id)
	if err == nil && n > MaxLaunches {
		err = &InvalidError{Fields: map[string]string{"add_launches": "an incident holds at most " + strconv.Itoa(MaxLaunches) + " launches"}}
	}
	return err
}
