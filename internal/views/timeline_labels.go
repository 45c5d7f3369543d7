package views

// Font sizes of the launch timeline's labels (static/app.css): row and
// marker labels, and the labels inside bars.
const (
	tlLabelPx  = 11
	tlInsidePx = 10
)

// placeLabels places every label of the launch timeline so that none
// crosses another: the rows' names (cut to the room left of the plot),
// the bars' labels (inside a bar when it holds them, else after its end,
// else inside its end, else none: the bar's title keeps it), then the
// words "ready" and the exit's ("exit 1") beside their lines, in the first
// row where they cross nothing.
func (p *TimelineProps) placeLabels() {
	var placed boxes
	rowY := func(i int) float64 { return float64(p.laneY(i) + 16) }
	for i := range p.Rows {
		r := &p.Rows[i]
		r.Label = clipText(rowLabel(*r), tlLeft-8, tlLabelPx)
		placed = append(placed, labelBox(r.Label, 4, rowY(i), tlLabelPx, "start"))
	}
	placed = append(placed, labelBox("alarms", 4, rowY(p.alarmLane()), tlLabelPx, "start"))
	if len(p.Notes) > 0 {
		placed = append(placed, labelBox("notes", 4, rowY(p.noteLane()), tlLabelPx, "start"))
	}
	// Inside labels first: they stay within their bars.
	for pass := range 2 {
		for i := range p.Rows {
			r := &p.Rows[i]
			for k := range r.Segments {
				s := &r.Segments[k]
				inside := p.insideLabel(*r, *s)
				if s.Label == "" || inside != (pass == 0) {
					continue
				}
				if b, ok := p.placeSegmentLabel(s, inside, rowY(i), placed); ok {
					placed = append(placed, b)
				} else {
					s.Label = ""
				}
			}
		}
	}
	if len(p.Readies) > 0 {
		// "ready" sits low, near the axis, where it always sat.
		var rows []int
		for i := p.RowCount() - 1; i >= 0; i-- {
			rows = append(rows, i)
		}
		p.ReadyLabel, placed = p.placeLineLabel("ready", p.xf(p.Readies[0].At), rows, placed)
	}
	if p.Exit != nil {
		var rows []int
		for i := range p.RowCount() {
			rows = append(rows, i)
		}
		p.ExitLabel, _ = p.placeLineLabel(p.Exit.Title, p.xf(p.Exit.At), rows, placed)
	}
}

// placeSegmentLabel places s's label: inside, centred on the bar when it
// holds it; outside, after the bar's end, or inside its end near the
// plot's right edge, or inside its end when the space after it is taken.
func (p *TimelineProps) placeSegmentLabel(s *TimelineSegment, inside bool, y float64, placed boxes) (box, bool) {
	x0, x1 := p.xf(s.Begin), p.drawnEnd(s.Begin, s.End)
	fitsIn := textWidth(s.Label, tlInsidePx) <= x1-x0
	if inside {
		b := labelBox(s.Label, (x0+x1)/2, y, tlInsidePx, "middle")
		if !fitsIn || !placed.free(b) {
			return box{}, false
		}
		s.Inside, s.LabelX, s.LabelAnchor = true, fmt1((x0+x1)/2), "middle"
		return b, true
	}
	type spot struct {
		x      float64
		anchor string
		px     float64
	}
	spots := []spot{{x1 + 4, "start", tlLabelPx}, {x1 - 4, "end", tlLabelPx}}
	if x1 > tlWidth-tlRight-140 {
		spots[0], spots[1] = spots[1], spots[0]
	}
	for _, sp := range spots {
		b := labelBox(s.Label, sp.x, y, sp.px, sp.anchor)
		if b.x0 < tlLeft || b.x1 > tlWidth || !placed.free(b) {
			continue
		}
		s.LabelX, s.LabelAnchor = fmt1(sp.x), sp.anchor
		return b, true
	}
	return box{}, false
}

// placeLineLabel places text beside the vertical line at x: left of it,
// then right of it, in each of rows in turn, the first spot that crosses
// no label and stays on the plot.
func (p *TimelineProps) placeLineLabel(text string, x float64, rows []int, placed boxes) (*PlacedLabel, boxes) {
	for _, i := range rows {
		y := float64(p.laneY(i) + 16)
		for _, sp := range []struct {
			x      float64
			anchor string
		}{{x - 4, "end"}, {x + 4, "start"}} {
			b := labelBox(text, sp.x, y, tlLabelPx, sp.anchor)
			if b.x0 < tlLeft || b.x1 > tlWidth || !placed.free(b) {
				continue
			}
			return &PlacedLabel{X: fmt1(sp.x), Y: itoa(int(y)), Anchor: sp.anchor}, append(placed, b)
		}
	}
	return nil, placed
}
