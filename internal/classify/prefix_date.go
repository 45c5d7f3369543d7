package classify

import "time"

// dateUTC is time.Date(year, time.Month(month), day, hour, min, sec, nsec,
// time.UTC) for month 1..12 and nsec 0..999999999, without Date's
// normalisation and zone lookup: most lines carry a timestamp, and this
// takes a third of Date's time. Day, hour, minute and second may be out of
// their ranges (a prefix's "02-31" or "25:61:99"): Date adds them linearly
// to the first of the month, and so does this. Years outside 0..9999 (no
// prefix writes one) are left to Date.
func dateUTC(year, month, day, hour, min, sec, nsec int) time.Time {
	if year < 0 || year > 9999 {
		return time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	}
	var days int
	if y := year - tableFirstYear; y >= 0 && y < len(monthDays) {
		days = int(monthDays[y][month-1])
	} else {
		days = daysFromCivil(year, month)
	}
	days += day - 1
	return time.Unix(int64(days)*86400+int64(hour*3600+min*60+sec), int64(nsec)).UTC()
}

// monthDays holds daysFromCivil for every month of the years logs are
// written in, so that the common timestamps need no division.
var monthDays = func() (t [256][12]int32) {
	for y := range t {
		for m := range 12 {
			t[y][m] = int32(daysFromCivil(tableFirstYear+y, m+1))
		}
	}
	return t
}()

const tableFirstYear = 1900

// daysFromCivil is the number of days from 1970-01-01 to the first of
// month in year (0..9999).
func daysFromCivil(year, month int) int {
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
	return era*146097 + doe - 719468
}
