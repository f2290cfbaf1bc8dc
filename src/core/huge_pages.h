// Transparent huge pages for the heap.
//
// The event loop is bound by memory latency: every event loads a port, a packet, a queue head or a
// flow's state from a working set of tens of megabytes (docs/scale.md "Cost per event"). With 4 KiB
// pages that set spans thousands of pages, far more than the TLB holds, so many of those loads also
// walk the page tables (in a virtual machine a two-dimensional walk). With 2 MiB pages the same set
// is a few dozen TLB entries. Where the kernel backs anonymous memory with huge pages only on
// request (/sys/kernel/mm/transparent_hugepage/enabled = madvise, as on our 2-core VM), glibc >= 2.35
// makes that request for its heap when the tunable glibc.malloc.hugetlb=1 is set. glibc reads its
// tunables from GLIBC_TUNABLES only when the process starts, so `lbsim` re-executes itself once with
// the tunable added (same pid, same arguments; LBSIM_HUGEPAGES=0 turns this off). Measured in
// docs/scale.md "Huge pages". Simulated results do not depend on it (only addresses change).
#pragma once
#include <string>
#include <string_view>

namespace lbsim::huge_pages {

inline constexpr std::string_view kHugetlbTunable = "glibc.malloc.hugetlb";

// The kernel's transparent huge page mode, from the text of
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never": the bracketed one is in
// force): "always", "madvise", "never", or "" when the text names none (no such file: no THP).
std::string thp_mode(std::string_view enabled_text);

// Whether this build's malloc is glibc's (>= 2.35) and so heeds the tunable (not under the
// sanitizers, which bring their own allocator).
bool glibc_heap();

// The kernel's mode now (thp_mode() of the file; "" where the file is missing).
std::string kernel_thp_mode();

// The GLIBC_TUNABLES value to re-execute with, or "" to run as is. Re-execute only when
//  - the user has not turned it off (`opt_out` is LBSIM_HUGEPAGES: "0" turns it off),
//  - the tunables do not set glibc.malloc.hugetlb already (the user's own choice, or this process
//    is the re-executed one), and
//  - the kernel gives huge pages on request (`mode`, thp_mode(): "madvise"; with "always" the heap gets them
//    anyway, with "never" or no THP not at all).
// The tunable is appended to the user's tunables (colon-separated), which are kept.
std::string tunables_to_set(const char* tunables, const char* opt_out, std::string_view mode);

// How this process's heap is backed, for summary.json perf.huge_pages: "always" (the kernel backs
// all anonymous memory with huge pages where it can), "advised" (THP on request and this process's
// GLIBC_TUNABLES asks glibc for it), or "off" (neither, or a build whose malloc is not glibc's, e.g.
// under the sanitizers).
std::string heap_backing();

// Called first thing in main(): re-executes /proc/self/exe with `argv` and the tunable when
// tunables_to_set() says so (does not return then); returns when there is nothing to do or the
// re-execution failed (the run then goes on with small pages).
void reexec(char** argv);

}  // namespace lbsim::huge_pages
