// Command term256css writes static/term256.css, the 256-colour palette's
// classes of log text (views.Term256CSS); make generate runs it.
package main

import (
	"fmt"

	"launchwatch/internal/views"
)

func main() { fmt.Print(views.Term256CSS()) }
