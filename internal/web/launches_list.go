package web

import (
	"errors"
	"launchwatch/internal/api"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

const (
	defaultLaunchesLimit = 50
	maxLaunchesLimit     = 500
)

// launchListItemJSON is a launch in the list API: the launch's own shape
// without its alarms, plus why it ended as it did.
type launchListItemJSON struct {
	api.Launch
	// Alarms hides api.Launch's: the list leaves them to the launch's own
	// endpoint.
	Alarms []api.Alarm `json:"alarms,omitempty"`
	Why    string      `json:"why,omitempty"`
}

type launchesPageJSON struct {
	Launches []launchListItemJSON `json:"launches"`
	// NextAfter is the after= value of the next page (the key of this
	// page's last launch); absent on the last page.
	NextAfter string `json:"next_after,omitempty"`
}

// launchesList answers GET /api/v1/launches?status=&server=&label=&q=&after=&limit=:
// the launches newest first, filtered as the list page filters them, one
// page at a time. after= is the key of the last launch of the previous
// page (its next_after), so pages stay put while new launches arrive.
func (h *handler) launchesList(c echo.Context) error {
	q := c.QueryParams()
	f, err := parseLaunchesFilter(q)
	if err != nil {
		return err
	}
	if f.Sort != "" {
		// The cursor (after) is a place in the newest-first order.
		return decode.BadRequest("sort is for the launches page; the API lists newest first, paged with after")
	}
	limit, err := decode.IntParam(q, "limit", defaultLaunchesLimit, 1, maxLaunchesLimit)
	if err != nil {
		return err
	}
	after := strings.TrimSpace(q.Get("after"))
	ctx := c.Request().Context()
	if after != "" {
		if !launchid.KeyPattern.MatchString(after) {
			return decode.BadRequest("after %q is not a launch key: pass the next_after of the previous page", after)
		}
		if _, err := h.store.LaunchByKey(ctx, after); errors.Is(err, store.ErrNotFound) {
			return decode.BadRequest("after %q names no launch: pass the next_after of the previous page", after)
		} else if err != nil {
			return err
		}
	}
	now := h.pipe.Clock().Now()
	sf := launchFilter(f, h.cfg.SilentAfter, now)
	sf.AfterKey, sf.Limit = after, int(limit)+1
	items, _, err := h.store.ListLaunches(ctx, sf)
	if err != nil {
		return err
	}
	page := launchesPageJSON{Launches: []launchListItemJSON{}}
	if len(items) > int(limit) {
		items = items[:limit]
		page.NextAfter = items[len(items)-1].Key
	}
	for i := range items {
		it := &items[i]
		page.Launches = append(page.Launches, launchListItemJSON{Launch: timeline.LaunchJSON(&it.Launch, now, h.cfg.SilentAfter),
			Why: launchWhy(it)})
	}
	return c.JSON(http.StatusOK, page)
}

// launchFilter is the store's filter for the list's filters, silence
// measured at now.
func launchFilter(f views.LaunchesFilter, silentAfter time.Duration, now time.Time) store.LaunchFilter {
	sf := store.LaunchFilter{Status: f.Status, SilentAfter: silentAfter, Now: now, Server: f.Server, Search: f.Query}
	sf.LabelName, sf.LabelValue, _ = strings.Cut(f.Label, "=")
	return sf
}

// launchWhy says why a launch is where it is: the headline of its deciding
// alarm (the first fatal alarm still open or confirmed), or how it exited.
func launchWhy(it *store.LaunchListItem) string {
	switch {
	case it.DecidingHeadline != nil:
		return views.Plain(*it.DecidingHeadline)
	case it.ExitSignal != nil && *it.ExitSignal != "":
		return "killed by " + *it.ExitSignal
	case it.ExitCode != nil:
		return "exit code " + strconv.Itoa(*it.ExitCode)
	}
	return ""
}
