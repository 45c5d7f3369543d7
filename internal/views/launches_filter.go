package views

import (
	"net/url"
	"strconv"
	"time"
)

// URL is the list's URL with f's filters and sort, on page n.
func (f LaunchesFilter) URL(n int) string {
	v := url.Values{}
	for k, s := range map[string]string{"status": f.Status, "server": f.Server, "label": f.Label, "q": f.Query, "sort": f.Sort} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Sort != "" && f.Asc {
		v.Set("dir", "asc")
	}
	if n > 1 {
		v.Set("page", strconv.Itoa(n))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// SortURL is the URL that sorts the list by key: descending first (the
// newest, slowest, most alarmed on top), ascending when it already sorts
// descending by key; back on the first page.
func (f LaunchesFilter) SortURL(key string) string {
	g := f
	g.Asc = f.Sort == key && !f.Asc
	g.Sort = key
	return g.URL(1)
}

// AriaSort is the aria-sort state of the column key.
func (f LaunchesFilter) AriaSort(key string) string {
	switch {
	case f.Sort != key:
		return "none"
	case f.Asc:
		return "ascending"
	}
	return "descending"
}

// Ago says how long before now t was, to the largest unit: "just now",
// "42s ago", "5m ago", "3h ago", "2d ago"; "—" without a time.
func Ago(t *time.Time, now time.Time) string {
	if t == nil || t.IsZero() {
		return "—"
	}
	d := now.Sub(*t)
	switch {
	case d < 0:
		return "in " + agoUnits(-d)
	case d < time.Second:
		return "just now"
	}
	return agoUnits(d) + " ago"
}

func agoUnits(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}
