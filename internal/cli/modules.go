package cli

import "github.com/spf13/cobra"

// moduleCommands are the commands of the capabilities built as modules
// (internal/app/modules.go), each in its module's own file: a module's
// command line is one entry here.
var moduleCommands = []func(*options) *cobra.Command{newScores}

// addModuleCommands adds every module's commands to root.
func addModuleCommands(root *cobra.Command, opts *options) {
	for _, c := range moduleCommands {
		root.AddCommand(c(opts))
	}
}
