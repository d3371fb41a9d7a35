// C++'s operator new and delete, every replaceable form, served by mimalloc
// in the static prefixroute-bench (tools/CMakeLists.txt). This is mimalloc's
// own way for a static link: a malloc override there would take glibc's
// malloc, which the C library uses before huge_page_heap.cpp can set
// mimalloc's options (cmake/static_mimalloc.cmake says why that matters).
// The C library's own allocations stay with glibc's malloc; nothing frees
// one kind with the other's function (valgrind's mismatched-free check on
// prefixroute-bench-memcheck, scripts/leak-check.sh).
#include <mimalloc-new-delete.h>
