// Releasing the resident code pages of shared libraries a process no longer runs.
//
// ssm-run links libLLVM and libMLIR (it also hosts the reference interpreter
// and builds graphs to compile), and their static initializers touch about
// 48 MB of their code at start-up (mamba-130m's weights are 493 MB): a model
// run on compiled kernels never executes that code again, yet it counted in
// the run's peak resident memory (issue 35: 1.20x the weights file).
#ifndef SSM_TOOLS_SSMRUN_LIBRARYPAGES_H
#define SSM_TOOLS_SSMRUN_LIBRARYPAGES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssm {

/// Drops this process's resident pages of the code mappings (r-xp, private,
/// file-backed, as /proc/self/smaps lists them) of every mapped file whose
/// path contains one of `names` (for example "libLLVM.so"), with
/// madvise(MADV_DONTNEED): the pages leave the resident set but stay in the
/// page cache, and any later call into that code faults them back in from
/// the unchanged file (a minor fault), so behaviour is unchanged. A mapping
/// with a page of its own (smaps' Anonymous non-zero: a page copied on
/// write, as a debugger's breakpoint or a text relocation makes) is left
/// alone, since dropping it would restore the file's bytes. (Private_Dirty
/// is no guide: it also counts page-cache pages not yet written back.) Returns the resident KiB released (their Rss
/// before); 0 when /proc/self/smaps cannot be read (not Linux) or nothing
/// matches. Never fails: it is a memory hint, not a requirement.
int64_t releaseLibraryCode(const std::vector<std::string> &names);

} // namespace ssm

#endif
