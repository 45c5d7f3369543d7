package views

// previousWhy says how the launch to compare with was chosen.
func (p LaunchProps) previousWhy() string {
	switch p.PreviousBy {
	case "host":
		return "the newest earlier launch on the same host, " + p.Host + ": none shares its name or key stem"
	case "":
		return ""
	}
	return "the newest earlier launch of the same " + p.PreviousBy
}
