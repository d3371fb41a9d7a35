# mimalloc as a static library, for a prefixroute-bench that is one static
# executable (tools/CMakeLists.txt; tools/huge_page_heap.cpp says why the
# benchmark runs on mimalloc at all).
#
# Why static: the dynamic loader's work (mapping libmimalloc, libm and libc,
# relocating them and the executable) and its page faults are ~1.3 ms of
# every process start on the project's machines, a twentieth of the
# reference scenario's whole process (docs/PERFORMANCE.md, "Page faults and
# the heap"). Debian ships mimalloc as a shared library only, so the source
# comes from Debian's archive: the upstream tarball of the very version
# libmimalloc-dev installs (2.0.9, repacked "+ds"), its SHA-256 pinned from
# the package's .dsc. It is built from mimalloc's own one-file amalgamation
# (src/static.c) with the flags mimalloc's CMakeLists gives its static
# library on GCC and Clang, and:
#   - no malloc override (MI_OVERRIDE off): glibc's static malloc keeps the C
#     library's own allocations, and the C++ allocations go to mimalloc
#     through mimalloc-new-delete.h (tools/huge_page_heap.cpp). glibc
#     allocates before any of the executable's code runs, so an overriding
#     mimalloc would make its first segment before huge_page_heap.cpp sets
#     its options, and that segment would not be on huge pages;
#   - MI_SKIP_COLLECT_ON_EXIT: a static mimalloc otherwise frees and
#     decommits every page at exit (for a library unloaded and reloaded;
#     the shared build never does), which the kernel does anyway.
#
# Sets PREFIXROUTE_STATIC_MIMALLOC to ON and defines the target
# prefixroute_mimalloc_static when the tarball is at hand (downloaded once
# into the build tree, or given as PREFIXROUTE_MIMALLOC_TARBALL) and a
# static C++ program links here; else OFF, with a status line saying why,
# and the benchmark links Debian's shared libmimalloc as before. Results
# never depend on the heap (bench/identical_results.sh).

set(PREFIXROUTE_MIMALLOC_TARBALL_NAME "mimalloc_2.0.9+ds.orig.tar.xz")
set(PREFIXROUTE_MIMALLOC_SHA256 "cbc9d207ff105ad1f0cb739c378076143a6452b8d0624309cea0abfb040e972b")
set(PREFIXROUTE_MIMALLOC_URL
    "http://deb.debian.org/debian/pool/main/m/mimalloc/mimalloc_2.0.9%2Bds.orig.tar.xz")
set(PREFIXROUTE_MIMALLOC_TARBALL "" CACHE FILEPATH
    "A local copy of ${PREFIXROUTE_MIMALLOC_TARBALL_NAME} (else it is downloaded from Debian's archive)")
option(PREFIXROUTE_STATIC_BENCH "Link prefixroute-bench as one static executable with mimalloc built in" ON)

set(PREFIXROUTE_STATIC_MIMALLOC OFF)

function(prefixroute_static_mimalloc_unavailable why)
  message(STATUS "prefixroute-bench: Debian's shared libmimalloc (not one static executable): ${why}")
endfunction()

function(prefixroute_fetch_mimalloc out_dir)
  set(deps ${CMAKE_BINARY_DIR}/_deps/mimalloc)
  set(source ${deps}/mimalloc-2.0.9+ds)
  set(${out_dir} "" PARENT_SCOPE)
  if(EXISTS ${source}/src/static.c)
    set(${out_dir} ${source} PARENT_SCOPE)
    return()
  endif()
  set(tarball ${PREFIXROUTE_MIMALLOC_TARBALL})
  if(tarball AND NOT EXISTS ${tarball})
    prefixroute_static_mimalloc_unavailable("PREFIXROUTE_MIMALLOC_TARBALL ${tarball} does not exist")
    return()
  endif()
  if(NOT tarball)
    set(tarball ${deps}/${PREFIXROUTE_MIMALLOC_TARBALL_NAME})
    if(NOT EXISTS ${tarball})
      message(STATUS "Downloading ${PREFIXROUTE_MIMALLOC_URL}")
      # The hash is checked below (a mismatch here would end the configure).
      file(DOWNLOAD ${PREFIXROUTE_MIMALLOC_URL} ${tarball}.part TIMEOUT 60 STATUS status)
      list(GET status 0 code)
      if(NOT code EQUAL 0)
        file(REMOVE ${tarball}.part)
        list(GET status 1 message)
        prefixroute_static_mimalloc_unavailable("cannot download ${PREFIXROUTE_MIMALLOC_URL} (${message})")
        return()
      endif()
      file(RENAME ${tarball}.part ${tarball})
    endif()
  endif()
  file(SHA256 ${tarball} actual)
  if(NOT actual STREQUAL PREFIXROUTE_MIMALLOC_SHA256)
    if(NOT PREFIXROUTE_MIMALLOC_TARBALL)
      file(REMOVE ${tarball})
    endif()
    prefixroute_static_mimalloc_unavailable("${tarball} has SHA-256 ${actual}, not ${PREFIXROUTE_MIMALLOC_SHA256}")
    return()
  endif()
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${deps})
  if(NOT EXISTS ${source}/src/static.c)
    prefixroute_static_mimalloc_unavailable("${tarball} holds no mimalloc-2.0.9+ds/src/static.c")
    return()
  endif()
  set(${out_dir} ${source} PARENT_SCOPE)
endfunction()

if(NOT PREFIXROUTE_STATIC_BENCH)
  prefixroute_static_mimalloc_unavailable("PREFIXROUTE_STATIC_BENCH is OFF")
  return()
endif()

# A static C++ program with threads must link here (glibc's libc.a and
# libstdc++.a: Debian's libc6-dev and libstdc++-12-dev, which g++ installs).
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LINK_OPTIONS -static -pthread)
check_cxx_source_compiles([[
#include <thread>
int main() { std::thread t([] {}); t.join(); return 0; }
]] PREFIXROUTE_CAN_LINK_STATIC)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT PREFIXROUTE_CAN_LINK_STATIC)
  prefixroute_static_mimalloc_unavailable("a static C++ program does not link here")
  return()
endif()

prefixroute_fetch_mimalloc(PREFIXROUTE_MIMALLOC_SOURCE)
if(NOT PREFIXROUTE_MIMALLOC_SOURCE)
  return()
endif()

enable_language(C)
find_package(Threads REQUIRED)
add_library(prefixroute_mimalloc_static STATIC ${PREFIXROUTE_MIMALLOC_SOURCE}/src/static.c)
target_include_directories(prefixroute_mimalloc_static SYSTEM PUBLIC ${PREFIXROUTE_MIMALLOC_SOURCE}/include)
target_compile_definitions(prefixroute_mimalloc_static PRIVATE MI_STATIC_LIB MI_SKIP_COLLECT_ON_EXIT=1)
# mimalloc's own flags for its static library (GCC, Clang); its warnings are
# not the project's.
target_compile_options(prefixroute_mimalloc_static PRIVATE -fvisibility=hidden -ftls-model=initial-exec -w)
target_link_libraries(prefixroute_mimalloc_static PUBLIC Threads::Threads)
set(PREFIXROUTE_STATIC_MIMALLOC ON)
message(STATUS "prefixroute-bench: one static executable, mimalloc 2.0.9 built in (${PREFIXROUTE_MIMALLOC_SOURCE})")
