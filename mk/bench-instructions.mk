# make bench-instructions: instructions per unit of the speed table's
# workloads, counted by callgrind (bench/instructions/). A figure that does
# not drift with the machine's load, to judge every change to the hot path.
.PHONY: bench-instructions
BENCH_INSTR := $(OUT)/bench-instructions
$(BENCH_INSTR): mk/bench-instructions.mk bench/instructions/workloads.c bench/instructions/reference.c bench/instructions/reference.h bench/bench_chain.c bench/bench.h $(HEADER) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -gdwarf-4 -Wall -Wextra -Werror -IInclude bench/instructions/workloads.c bench/instructions/reference.c bench/bench_chain.c \
	    -L$(OUT)/lib -lripple -lpthread -Wl,-rpath,$(CURDIR)/$(OUT)/lib -o $@
# valgrind 3.19 cannot read the Swift runtime's DWARF: count against the
# library without debug sections (as make valgrind does).
bench-instructions: $(BENCH_INSTR) | deps
	@mkdir -p $(VG_LIB) && objcopy --strip-debug $(LIB) $(VG_LIB)/$(SONAME)
	@echo "instructions per unit (callgrind; load $$(cut -d' ' -f1-3 /proc/loadavg))"
	@LD_LIBRARY_PATH=$(CURDIR)/$(VG_LIB) bench/instructions/count.sh $(BENCH_INSTR) $(WORKLOADS)
# BENCH_BASE=dir (as for make bench-compare, mk/bench.mk): the same counts
# against that directory's library too, for before/after figures.
ifneq ($(BENCH_BASE),)
	@test -e "$(BENCH_BASE)/$(SONAME)" || { echo "bench-instructions: no $(SONAME) in BENCH_BASE=$(BENCH_BASE)"; exit 2; }
	@mkdir -p $(OUT)/valgrind-base && objcopy --strip-debug $(BENCH_BASE)/$(SONAME) $(OUT)/valgrind-base/$(SONAME)
	@echo "the same against BENCH_BASE=$(BENCH_BASE) (load $$(cut -d' ' -f1-3 /proc/loadavg))"
	@LD_LIBRARY_PATH=$(CURDIR)/$(OUT)/valgrind-base bench/instructions/count.sh $(BENCH_INSTR) $(WORKLOADS)
endif
