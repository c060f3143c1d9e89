# glue.mk: read after CPython's own Makefile (make -f Makefile -f glue.mk),
# so the reactor is linked exactly as python.wasm is, with glue.c in place
# of Programs/python.o.
GLUE_SRC ?= glue.c

Programs/wasmenv_glue.o: $(GLUE_SRC)
	$(CC) -c $(PY_CORE_CFLAGS) -I. -I$(srcdir)/Include -o $@ $(GLUE_SRC)

wasmenv-reactor.wasm: Programs/wasmenv_glue.o $(LINK_PYTHON_DEPS)
	$(LINKCC) $(PY_CORE_LDFLAGS) $(LINKFORSHARED) -mexec-model=reactor \
		-o $@ Programs/wasmenv_glue.o $(LINK_PYTHON_OBJS) $(LIBS) $(MODLIBS) $(SYSLIBS)
	llvm-strip $@
