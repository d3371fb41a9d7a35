# mimalloc as a static library, for a prefixroute-bench that is one static
# executable (tools/CMakeLists.txt; tools/huge_page_heap.cpp says why the
# benchmark runs on mimalloc at all).
#
# Why static: without the dynamic loader (mapping libmimalloc, libm and
# libc, relocating them and the executable, and its page faults) main()
# began 4.6 -> 3.3 ms after the fork on the AMD machine of
# docs/PERFORMANCE.md ("One static executable"). Debian ships mimalloc as a
# shared library only, so the source comes from Debian's archive: the
# upstream tarball of the very version libmimalloc-dev installs (2.0.9,
# repacked "+ds"), its SHA-256 pinned from the package's .dsc. It is built
# from mimalloc's own one-file amalgamation (src/static.c) with the flags
# mimalloc's CMakeLists gives its static library on GCC and Clang, and:
#   - no malloc override (MI_OVERRIDE off): glibc's static malloc keeps the C
#     library's own allocations, and the C++ allocations go to mimalloc
#     through mimalloc-new-delete.h (tools/mimalloc_new_delete.cpp). glibc
#     allocates before any of the executable's code runs, so an overriding
#     mimalloc would make its first segment before huge_page_heap.cpp sets
#     its options, and that segment would not be on huge pages;
#   - MI_SKIP_COLLECT_ON_EXIT: a static mimalloc otherwise frees and
#     decommits every page at exit (for a library unloaded and reloaded;
#     the shared build never does), which the kernel does anyway;
#   - MI_DEBUG 0 whatever the build type: mimalloc's own checks are not
#     what a debug build of prefixroute is for.
#
# Sets PREFIXROUTE_STATIC_MIMALLOC to ON and defines the target
# prefixroute_mimalloc_static when the tarball is at hand (downloaded once
# into the build tree, or given as PREFIXROUTE_MIMALLOC_TARBALL) and a
# static C++ test program links here; else OFF, with a warning saying why
# (an error with PREFIXROUTE_REQUIRE_STATIC_BENCH, which npm test sets), and
# the benchmark links Debian's shared libmimalloc. Results never depend on
# the heap (bench/identical_results.sh).

set(PREFIXROUTE_MIMALLOC_TARBALL_NAME "mimalloc_2.0.9+ds.orig.tar.xz")
set(PREFIXROUTE_MIMALLOC_SHA256 "cbc9d207ff105ad1f0cb739c378076143a6452b8d0624309cea0abfb040e972b")
# Debian's archive while the release is served from it, then its snapshot
# archive (addressed by the file's SHA-1), which keeps every file it had.
set(PREFIXROUTE_MIMALLOC_URLS
    "http://deb.debian.org/debian/pool/main/m/mimalloc/mimalloc_2.0.9%2Bds.orig.tar.xz"
    "http://snapshot.debian.org/file/d3aed7cd768b2a94a2a248ec2e31b80ca0607d00")
set(PREFIXROUTE_MIMALLOC_TARBALL "" CACHE FILEPATH
    "A local copy of ${PREFIXROUTE_MIMALLOC_TARBALL_NAME} (else it is downloaded from Debian's archive)")

set(PREFIXROUTE_STATIC_MIMALLOC OFF)

function(prefixroute_static_mimalloc_unavailable why)
  set(text "prefixroute-bench: Debian's shared libmimalloc, not one static executable: ${why}")
  if(PREFIXROUTE_REQUIRE_STATIC_BENCH OR "$ENV{PREFIXROUTE_REQUIRE_STATIC_BENCH}")
    message(FATAL_ERROR "${text} (PREFIXROUTE_REQUIRE_STATIC_BENCH is set)")
  endif()
  message(WARNING "${text}")
endfunction()

# Sets `problem` to why `file` is not the pinned tarball, or to "".
function(prefixroute_mimalloc_hash_problem file problem)
  file(SHA256 ${file} actual)
  if(actual STREQUAL PREFIXROUTE_MIMALLOC_SHA256)
    set(${problem} "" PARENT_SCOPE)
  else()
    set(${problem} "SHA-256 ${actual}, not ${PREFIXROUTE_MIMALLOC_SHA256}" PARENT_SCOPE)
  endif()
endfunction()

# The unpacked source is used only when its stamp holds the tarball's
# SHA-256: it is unpacked into a scratch folder and renamed into place, so a
# configure stopped half-way leaves no tree that looks whole.
function(prefixroute_fetch_mimalloc out_dir)
  set(deps ${CMAKE_BINARY_DIR}/_deps/mimalloc)
  set(source ${deps}/mimalloc-2.0.9+ds)
  set(stamp ${source}.sha256)
  set(${out_dir} "" PARENT_SCOPE)
  if(EXISTS ${stamp})
    file(READ ${stamp} stamped)
    if(stamped STREQUAL PREFIXROUTE_MIMALLOC_SHA256 AND EXISTS ${source}/src/static.c)
      set(${out_dir} ${source} PARENT_SCOPE)
      return()
    endif()
  endif()
  set(tarball ${PREFIXROUTE_MIMALLOC_TARBALL})
  if(tarball)
    if(NOT EXISTS ${tarball} OR IS_DIRECTORY ${tarball})
      prefixroute_static_mimalloc_unavailable("PREFIXROUTE_MIMALLOC_TARBALL ${tarball} is not a file")
      return()
    endif()
    prefixroute_mimalloc_hash_problem(${tarball} problem)
    if(problem)
      prefixroute_static_mimalloc_unavailable("${tarball}: ${problem}")
      return()
    endif()
  else()
    set(tarball ${deps}/${PREFIXROUTE_MIMALLOC_TARBALL_NAME})
    set(failures "")
    foreach(url IN LISTS PREFIXROUTE_MIMALLOC_URLS)
      if(EXISTS ${tarball})
        break()
      endif()
      message(STATUS "Downloading ${url}")
      file(DOWNLOAD ${url} ${tarball}.part INACTIVITY_TIMEOUT 20 TIMEOUT 120 STATUS status)
      list(GET status 0 code)
      list(GET status 1 message)
      if(code EQUAL 0)
        prefixroute_mimalloc_hash_problem(${tarball}.part message)
      endif()
      if(code EQUAL 0 AND NOT message)
        file(RENAME ${tarball}.part ${tarball})
      else()
        list(APPEND failures "${url}: ${message}")
      endif()
      file(REMOVE ${tarball}.part)
    endforeach()
    if(NOT EXISTS ${tarball})
      list(JOIN failures "; " failures)
      prefixroute_static_mimalloc_unavailable("cannot download ${PREFIXROUTE_MIMALLOC_TARBALL_NAME} (${failures})")
      return()
    endif()
  endif()
  set(scratch ${deps}/unpacking)
  file(REMOVE_RECURSE ${scratch} ${source} ${stamp})
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${scratch})
  if(NOT EXISTS ${scratch}/mimalloc-2.0.9+ds/src/static.c)
    file(REMOVE_RECURSE ${scratch})
    prefixroute_static_mimalloc_unavailable("${tarball} holds no mimalloc-2.0.9+ds/src/static.c")
    return()
  endif()
  file(RENAME ${scratch}/mimalloc-2.0.9+ds ${source})
  file(REMOVE_RECURSE ${scratch})
  file(WRITE ${stamp} ${PREFIXROUTE_MIMALLOC_SHA256})
  set(${out_dir} ${source} PARENT_SCOPE)
endfunction()

if(NOT PREFIXROUTE_STATIC_BENCH)
  message(STATUS "prefixroute-bench: Debian's shared libmimalloc (PREFIXROUTE_STATIC_BENCH is OFF)")
  return()
endif()

# A static C++ program with threads must link here, with the project's
# linker (glibc's libc.a and libstdc++.a: Debian's libc6-dev and
# libstdc++-12-dev, which g++ installs).
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LINK_OPTIONS -static -pthread)
if(PREFIXROUTE_HAVE_LLD)
  list(APPEND CMAKE_REQUIRED_LINK_OPTIONS -fuse-ld=lld)
endif()
check_cxx_source_compiles([[
#include <thread>
int main() { std::thread t([] {}); t.join(); return 0; }
]] PREFIXROUTE_CAN_LINK_STATIC)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT PREFIXROUTE_CAN_LINK_STATIC)
  prefixroute_static_mimalloc_unavailable("a static C++ test program does not link here")
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
target_compile_definitions(prefixroute_mimalloc_static PRIVATE MI_STATIC_LIB MI_SKIP_COLLECT_ON_EXIT=1 MI_DEBUG=0)
# mimalloc's own flags for its static library (GCC, Clang); its warnings are
# not the project's.
target_compile_options(prefixroute_mimalloc_static PRIVATE -fvisibility=hidden -ftls-model=initial-exec -w)
target_link_libraries(prefixroute_mimalloc_static PUBLIC Threads::Threads)
set(PREFIXROUTE_STATIC_MIMALLOC ON)
message(STATUS "prefixroute-bench: one static executable, mimalloc 2.0.9 built in (${PREFIXROUTE_MIMALLOC_SOURCE})")
