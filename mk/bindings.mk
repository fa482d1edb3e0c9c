# Each binding brings bindings/<name>/check.sh (and demo.sh), run against the
# staged install; make bindings-check-<name> runs one, and the bindings run
# side by side under make -j. bindings-test-<name>: the unit tests alone.
BINDINGS := $(patsubst bindings/%/check.sh,%,$(wildcard bindings/*/check.sh))
.PHONY: bindings-check
bindings-check-%: bindings/%/check.sh $(STAGE_OK) FORCE | $(DEPS_OK)
	@echo "--- $<" && $(BINDING_ENV) bash $<
bindings-check: $$(addprefix bindings-check-,$$(BINDINGS))

# make test runs each binding's unit tests only (RIPPLE_CHECK=unit).
.PHONY: bindings-test
bindings-test-%: bindings/%/check.sh $(STAGE_OK) FORCE | $(DEPS_OK)
	@echo "--- $< (unit tests)" && RIPPLE_CHECK=unit $(BINDING_ENV) bash $<
bindings-test: $$(addprefix bindings-test-,$$(BINDINGS))
