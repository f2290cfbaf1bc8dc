// Streamed workloads (docs/scale-flows.md): entries made one at a time, in start order, shortly
// before they start, so that a run holds the entries in flight instead of the whole trace.
//
// An EntryStream yields the entries of a workload in id order, which is their start order (a
// streamed workload has no dependencies: GOAL schedules, collectives and files with dependencies
// keep their graph and are built eagerly). A generator that streams draws the same random numbers
// in the same order as when the whole workload is built at once: the eager Workload of such a
// plug-in is the drained stream (drain()), so both paths give the same entries by construction.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "workload/flow_spec.h"

namespace lbsim::workload {

class EntryStream {
 public:
  virtual ~EntryStream() = default;
  // The next entry (the one with the next id; start times never decrease), or false when the
  // workload has no more. Tag names are added to `tags` (Workload::tag, whose flows stay untouched)
  // as they are first needed, so the indices match the drained Workload's.
  virtual bool next(FlowSpec& out, Workload& tags) = 0;
};

// Every entry of `s` into one Workload (the eager path).
Workload drain(EntryStream& s);

}  // namespace lbsim::workload
