# The operating system's sources in make check: examples-c/chat_server
# (accept -> read_lines -> one subject -> write; SIGINT shuts it down)
# driven by real TCP clients on 127.0.0.1 (Tests/os/chat_check.py: two
# clients chat, one leaves mid-line, 200 at once, then SIGINT), against the
# staged install and under valgrind. The C tests (Tests/c/test_io_*.c) run
# with the other C tests in every variant; log_summary and chat_server's
# demonstration (no arguments: scripted clients, then SIGINT) run with the
# other examples (make demo, make valgrind).
.PHONY: os-check
CHAT_CLIENTS ?= 200
os-check: $(OUT)/examples/chat_server $(VG_SO) | $(DEPS_OK)
	@echo "--- chat_server with $(CHAT_CLIENTS) TCP clients"
	@LD_LIBRARY_PATH=$(STAGE)/lib $(WATCHDOG) $(PYTHON) Tests/os/chat_check.py --clients $(CHAT_CLIENTS) \
	    -- $(OUT)/examples/chat_server
	@echo "--- chat_server with $(CHAT_CLIENTS) TCP clients, under valgrind"
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) $(WATCHDOG) $(PYTHON) Tests/os/chat_check.py --clients $(CHAT_CLIENTS) \
	    --timeout 120 -- $(VALGRIND) $(OUT)/examples/chat_server
CHECK_EXTRA += os-check
