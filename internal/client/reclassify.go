package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// LaunchItem is a launch as GET /api/v1/launches lists it.
type LaunchItem struct {
	Key    string `json:"key"`
	Server string `json:"server"`
	Status string `json:"status"`
	Times  struct {
		Created time.Time `json:"created"`
	} `json:"times"`
}

// ListLaunches reads one page of GET /api/v1/launches (newest first) with
// the filters of q (server, status, label, q), after the launch key after
// ("" for the first page), and returns the next page's after, "" on the
// last page.
func (c *Client) ListLaunches(ctx context.Context, q url.Values, after string, limit int) ([]LaunchItem, string, error) {
	q2 := url.Values{}
	for k, v := range q {
		q2[k] = v
	}
	q2.Set("limit", strconv.Itoa(limit))
	if after != "" {
		q2.Set("after", after)
	}
	var page struct {
		Launches  []LaunchItem `json:"launches"`
		NextAfter string       `json:"next_after"`
	}
	err := c.do(ctx, http.MethodGet, "/api/v1/launches", q2, "", nil, &page)
	return page.Launches, page.NextAfter, err
}

// AlarmChange is an alarm a reclassification adds, removes or changes.
type AlarmChange struct {
	No          int    `json:"no"`
	WasNo       int    `json:"was_no"`
	Kind        string `json:"kind"`
	Fatal       bool   `json:"fatal"`
	Headline    string `json:"headline"`
	WasHeadline string `json:"was_headline"`
	State       string `json:"state"`
	DecidedBy   string `json:"decided_by"`
}

// Difference is what reclassifying a launch changes.
type Difference struct {
	Launch           string        `json:"launch"`
	Preview          bool          `json:"preview"`
	From             string        `json:"from"`
	To               string        `json:"to"`
	Added            []AlarmChange `json:"added"`
	Removed          []AlarmChange `json:"removed"`
	Changed          []AlarmChange `json:"changed"`
	Kept             int           `json:"kept"`
	DecisionsKept    int           `json:"decisions_kept"`
	DecisionsDropped int           `json:"decisions_dropped"`
	LinesChanged     int           `json:"lines_changed"`
	Classifier       string        `json:"classifier"`
	Signatures       []int64       `json:"signatures"`
}

// Reclassify asks the server to judge a stored launch again (preview:
// only say what would change).
func (c *Client) Reclassify(ctx context.Context, key string, preview bool) (Difference, error) {
	body, _ := json.Marshal(map[string]bool{"preview": preview})
	var d Difference
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/reclassify", nil, "application/json", body, &d)
	return d, err
}
