package stats

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a --since value relative to now: a duration ("90m",
// "24h", "7d"), a date ("2026-11-01", local midnight) or an RFC 3339 time.
// Empty means since ever (the zero time).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (90m, 24h, 7d), a date (2026-11-01) or an RFC 3339 time", s)
}
