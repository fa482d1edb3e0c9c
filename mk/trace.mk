# A trace timeline for any program (ripple.h: rpl_trace_write, RIPPLE_TRACE):
# the ripple-trace command (tools/), its install, and its test as a user
# would run it.
#   make trace-check   the command's own cases (Tests/trace/tool_check.py);
#                      a C program (Tests/trace/traced_program.c) traced with
#                      RIPPLE_TRACE, drawn by ripple-trace, the page opened in
#                      headless Chromium (lanes and marks in the DOM, hover,
#                      zoom, pan, no console errors), the screenshot kept in
#                      build/trace/timeline.png; an unmodified example traced
#                      the same way; a 1,000,000-event trace timed and sized
#   make trace-deps    Debian's chromium, when missing
bindir       ?= $(exec_prefix)/bin
man1dir      ?= $(mandir)/man1
TRACE_OUT    := $(OUT)/trace
TRACE_TOOL   := tools/ripple-trace
TRACE_EVENTS ?= 1000000
.PHONY: trace-check trace-deps install-trace uninstall-trace

trace-deps:
	@$(MAKE) --no-print-directory deps DEPS_BIN="chromium:chromium"

$(TRACE_OUT)/%: Tests/trace/%.c $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -IInclude $< -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@

trace-check: trace-deps $(TRACE_OUT)/traced_program $(TRACE_OUT)/many_events examples
	@echo "--- ripple-trace: the command's cases"
	@$(WATCHDOG) $(PYTHON) Tests/trace/tool_check.py $(TRACE_TOOL)
	@echo "--- ripple-trace: a traced C program in headless Chromium"
	@rm -f $(TRACE_OUT)/program.jsonl
	RIPPLE_TRACE=$(TRACE_OUT)/program.jsonl $(WATCHDOG) $(TRACE_OUT)/traced_program
	$(PYTHON) $(TRACE_TOOL) $(TRACE_OUT)/program.jsonl -o $(TRACE_OUT)/program.html --title traced_program
	$(WATCHDOG) $(PYTHON) Tests/trace/browser_check.py $(TRACE_OUT)/program.html $(TRACE_OUT)/program.jsonl \
	    --screenshot $(TRACE_OUT)/timeline.png --expect-signal clicks --expect-signal ticks \
	    --expect-signal '[clicks] -take: 3'
	@echo "--- ripple-trace: an unmodified example (examples-c/operators against the installed library)"
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

CHECK_EXTRA += trace-check

# Installed with the library (make install); packaged as ripple-tools
# (pkg/mkdeb.sh).
install: install-trace
install-trace:
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(man1dir)
	$(INSTALL) -m 0755 $(TRACE_TOOL) $(DESTDIR)$(bindir)/ripple-trace
	$(INSTALL) -m 0644 tools/ripple-trace.1 $(DESTDIR)$(man1dir)/ripple-trace.1

uninstall: uninstall-trace
uninstall-trace:
	rm -f $(DESTDIR)$(bindir)/ripple-trace $(DESTDIR)$(man1dir)/ripple-trace.1
	-rmdir $(DESTDIR)$(man1dir) $(DESTDIR)$(bindir) 2>/dev/null
