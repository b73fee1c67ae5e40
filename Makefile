# Shortcuts for the scripts the README names.
.PHONY: run test build bench completions
run:
	scripts/run.sh
test:
	scripts/test.sh
build:
	scripts/setup.sh --release
completions:
	swift run hark completions bash > completions/hark.bash
	swift run hark completions zsh > completions/_hark
	swift run hark completions fish > completions/hark.fish
bench:
	scripts/bench.sh
