package classify

import "time"

// yearCache is t.Year() for the times of one year without the calendar
// arithmetic of Year: consecutive lines almost always fall in the year of
// the line before, so the bounds of the last year computed answer them.
type yearCache struct {
	lo, hi int64 // Unix seconds of Jan 1 of year and of the year after, UTC
	year   int
	ok     bool
}

// of is t.Year().
func (c *yearCache) of(t time.Time) int {
	if t.Location() != time.UTC {
		return t.Year() // another zone's new year falls elsewhere
	}
	if u := t.Unix(); c.ok && u >= c.lo && u < c.hi {
		return c.year
	}
	y := t.Year()
	c.lo = time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	c.hi = time.Date(y+1, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	c.year, c.ok = y, true
	return y
}
