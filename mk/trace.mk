# A trace timeline for any program (ripple.h: rpl_trace_write, RIPPLE_TRACE):
# the ripple-trace command (tools/, installed by scripts/install.sh) and its
# tests, run as a user would.
#   make trace-tool-check  the command's own cases (Tests/trace/tool_check.py):
#                          windows, units, cut lines, stdin, bad input
#   make trace-check       a C program (Tests/trace/traced_program.c) traced
#                          with RIPPLE_TRACE, drawn by ripple-trace, the page
#                          opened in headless Chromium (lanes and marks in the
#                          DOM, hover, zoom, pan, no console errors), its
#                          screenshot kept in build/trace/timeline.png; an
#                          unmodified example traced the same way; a
#                          1,000,000-event trace (TRACE_EVENTS) timed and sized
# Chromium comes from scripts/deps/trace.apt (make deps).
TRACE_OUT    := $(OUT)/trace
TRACE_TOOL   := tools/ripple-trace
TRACE_EVENTS ?= 1000000
.PHONY: trace-check trace-tool-check

$(TRACE_OUT)/%: Tests/trace/%.c $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -IInclude $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@

trace-tool-check:
	$(WATCHDOG) $(PYTHON) Tests/trace/tool_check.py $(TRACE_TOOL)

trace-check: trace-tool-check $(TRACE_OUT)/traced_program $(TRACE_OUT)/many_events $(OUT)/examples/operators | $(DEPS_OK)
	@echo "--- ripple-trace: a traced C program in headless Chromium"
	@rm -f $(TRACE_OUT)/program.jsonl
	RIPPLE_TRACE=$(TRACE_OUT)/program.jsonl $(WATCHDOG) $(TRACE_OUT)/traced_program
	$(PYTHON) $(TRACE_TOOL) $(TRACE_OUT)/program.jsonl -o $(TRACE_OUT)/program.html --title traced_program
	$(WATCHDOG) $(PYTHON) Tests/trace/browser_check.py $(TRACE_OUT)/program.html $(TRACE_OUT)/program.jsonl \
	    --screenshot $(TRACE_OUT)/timeline.png --expect-signal clicks --expect-signal ticks \
	    --expect-signal '[clicks] -take: 3'
	@echo "--- ripple-trace: an unmodified example (examples-c/operators, against the installed library)"
	@rm -f $(TRACE_OUT)/operators-*.jsonl
	cd $(TRACE_OUT) && RIPPLE_TRACE='operators-%p.jsonl' LD_LIBRARY_PATH=$(STAGE)/lib \
	    $(WATCHDOG) $(CURDIR)/$(OUT)/examples/operators >/dev/null
	@f=$$(ls $(TRACE_OUT)/operators-*.jsonl) && test "$$(echo $$f | wc -w)" = 1 && \
	  $(PYTHON) $(TRACE_TOOL) $$f -o $(TRACE_OUT)/operators.html && \
	  $(WATCHDOG) $(PYTHON) Tests/trace/browser_check.py $(TRACE_OUT)/operators.html $$f \
	    --screenshot $(TRACE_OUT)/operators.png
	@echo "--- ripple-trace: $(TRACE_EVENTS) events"
	@rm -f $(TRACE_OUT)/many.jsonl
	@s=$$(date +%s%N); RIPPLE_TRACE=$(TRACE_OUT)/many.jsonl $(WATCHDOG) $(TRACE_OUT)/many_events $(TRACE_EVENTS) && \
	  echo "traced program: $$(( ($$(date +%s%N) - s) / 1000000 )) ms, $$(wc -l < $(TRACE_OUT)/many.jsonl) lines," \
	    "$$(stat -c %s $(TRACE_OUT)/many.jsonl) bytes (load $$(cut -d' ' -f1-3 /proc/loadavg))"
	$(WATCHDOG) $(PYTHON) $(TRACE_TOOL) $(TRACE_OUT)/many.jsonl -o $(TRACE_OUT)/many.html
	$(WATCHDOG) $(PYTHON) Tests/trace/browser_check.py $(TRACE_OUT)/many.html $(TRACE_OUT)/many.jsonl \
	    --screenshot $(TRACE_OUT)/timeline-large.png --large --expect-signal 'sensor 0'
	@echo "trace-check: OK (screenshots in $(TRACE_OUT)/)"

TEST_EXTRA  += trace-tool-check
CHECK_EXTRA += trace-check
