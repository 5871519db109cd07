package app

// modules are the capabilities built as modules, in the order they open: a
// chat interceptor of an earlier one sees messages first.
var modules = []Module{suggestionsModule, alertsModule, scoreModule, botsModule, teamsModule, otlpModule, proxyModule}

// ModuleEnv lists the settings every module reads, for the help text.
func ModuleEnv() [][2]string {
	var out [][2]string
	for _, m := range modules {
		out = append(out, m.Env...)
	}
	return out
}
