#!/usr/bin/env bash
# Builds the CPython interpreter wasmenv runs Python tool code with:
#   python.wasm  - CPython 3.13.5 for wasm32-wasi as a WASI *reactor* with the small
#                  C glue in glue.c (wasmenv_py_init / _exec / _call exports)
#   stdlib.zip   - the stdlib subset tool code may use (stored, not compressed: the
#                  interpreter has no zlib)
# from Debian's own source package (python3.13 3.13.5-2+deb13u5, orig tarball) with
# Debian's clang 14, lld and the 2022 wasi-libc (issue 39 gives the recipe).
#
# Usage: tools/python-wasm/build.sh [BUILD_DIR]   (default /work/pywasm-build)
# Needs: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32 dpkg-dev
#        and a deb-src line for trixie (the source package); see docs/PYTHON.md.
# Output: BUILD_DIR/out/{python.wasm,stdlib.zip}; `make-artifact.sh` packs them.
# Each step is skipped when its output exists, so a rerun only redoes what is missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-/work/pywasm-build}"
version=3.13.5
debver=3.13.5-2+deb13u5
jobs="${JOBS:-2}"
mkdir -p "$build"
cd "$build"

# 1. Source: the orig tarball of Debian's python3.13 source package, checked by hash.
orig="python3.13_${version}.orig.tar.xz"
if [ ! -f "$orig" ]; then
	apt-get source --download-only "python3.13=${debver}"
fi
echo "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640  $orig" | sha256sum -c -
if [ ! -d src ]; then
	mkdir src.tmp && tar -xJf "$orig" -C src.tmp --strip-components=1 && mv src.tmp src
fi

# 2. A native build of the very same release: cross builds run it ("build Python").
if [ ! -x native/python ]; then
	mkdir -p native
	(cd native && { [ -f Makefile ] || ../src/configure --prefix="$build/native-prefix" --without-ensurepip >configure.log 2>&1; } &&
		make -j"$jobs" OPT="-DNDEBUG -O1" python >make.log 2>&1) # only run at build time: compile it fast
fi

# 3. The wasm32-wasi build. Debian's clang needs the wasi-libc headers given explicitly
# (host headers leak in otherwise); pkg-config must find nothing of the host's.
if [ ! -f wasi/python.wasm ]; then
	mkdir -p wasi empty-pkgconfig
	cat >wasi/config.site-extra <<'SITE'
# the 2022 wasi-libc has no pthread.h; CPython only needs the type's size
ac_cv_have_pthread_t=yes
ac_cv_sizeof_pthread_t=4
SITE
	wasi_cc="clang --target=wasm32-wasi -nostdlibinc -idirafter /usr/include/wasm32-wasi"
	(cd wasi && { [ -f Makefile ] ||
		CONFIG_SITE="$build/src/Tools/wasm/config.site-wasm32-wasi $build/wasi/config.site-extra" \
			CC="$wasi_cc" CPP="$wasi_cc -E" AR=llvm-ar RANLIB=llvm-ranlib \
			PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$build/empty-pkgconfig" \
			../src/configure --host=wasm32-wasip1 --build="$(../src/config.guess)" \
			--with-build-python="$build/native/python" --disable-test-modules \
			--without-ensurepip >configure.log 2>&1; } &&
		make -j"$jobs" OPT="-DNDEBUG -O2" >make.log 2>&1) # no -g: the reactor is stripped anyway
fi

# 4. The reactor: libpython and the built-in modules linked with glue.c instead of
# Programs/python.o, so wasmenv calls into one long-lived interpreter.
mkdir -p out
if [ ! -f out/python.wasm ] || [ "$here/glue.c" -nt out/python.wasm ]; then
	(cd wasi && make -f Makefile -f "$here/glue.mk" GLUE_SRC="$here/glue.c" wasmenv-reactor.wasm >glue.log 2>&1)
	cp wasi/wasmenv-reactor.wasm out/python.wasm
fi

# 5. The stdlib subset, stored uncompressed in a deterministic zip.
rm -rf out/stdlib
"$build/native/python" "$here/pack_stdlib.py" tree "$build/src/Lib" out/stdlib
python3 "$here/pack_stdlib.py" zip out/stdlib out/stdlib.zip
ls -l out
sha256sum out/python.wasm out/stdlib.zip
