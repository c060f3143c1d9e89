# glue.mk: linked after CPython's own Makefile (make -f Makefile -f glue.mk),
# so the reactor gets exactly the libraries python.wasm is linked with.
GLUE_SRC ?= glue.c

Programs/wasmenv_glue.o: $(GLUE_SRC)
	$(CC) -c $(PY_CORE_CFLAGS) -I. -I$(srcdir)/Include -o $@ $(GLUE_SRC)

wasmenv-reactor.wasm: Programs/wasmenv_glue.o $(LIBRARY_DEPS)
	$(LINKCC) $(PY_CORE_LDFLAGS) -mexec-model=reactor -Wl,--export=malloc,--export=free \
		-o $@ Programs/wasmenv_glue.o $(LINK_PYTHON_DEPS) $(LIBS) $(MODLIBS) $(SYSLIBS)
	llvm-strip-14 $@ 2>/dev/null || true
