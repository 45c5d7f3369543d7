package classify

import "time"

// dateUTC is time.Date(year, time.Month(month), day, hour, min, sec, nsec,
// time.UTC) for month 1..12 and nsec 0..999999999, without Date's
// normalisation and zone lookup: every prefix timestamp goes through it,
// and Date was a tenth of the prefix parse. Day, hour, minute and second
// may be out of their ranges (a prefix's "02-31" or "25:61:99"): Date adds
// them linearly to the first of the month, and so does this. Years outside
// 0..9999 (no prefix writes one) are left to Date.
func dateUTC(year, month, day, hour, min, sec, nsec int) time.Time {
	if year < 0 || year > 9999 {
		return time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	}
	// Days from 1970-01-01 to the first of the month in the proleptic
	// Gregorian calendar, with years starting in March so that the leap
	// day is the last of its year (H. Hinnant's days_from_civil).
	y, m := year, month-3
	if month <= 2 {
		y, m = year-1, month+9
	}
	era := y / 400 // y >= -1: only year 0's January and February have y < 0
	if y < 0 {
		era = -1
	}
	yoe := y - era*400
	doe := yoe*365 + yoe/4 - yoe/100 + (153*m+2)/5
	days := era*146097 + doe - 719468 + day - 1
	return time.Unix(int64(days)*86400+int64(hour*3600+min*60+sec), int64(nsec)).UTC()
}
