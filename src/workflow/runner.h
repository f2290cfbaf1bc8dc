// The child processes of the workflow commands: each sweep point runs as its own
// `lbsim run <point.toml> --quiet` process (a crash or bad input fails that point only), either
// locally with N workers or as one Slurm job array. Both record the run's exit code in
// runs/NAME/.exit_code, which is what the run-folder bookkeeping in sweep.h reads back.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "workflow/sweep.h"

namespace lbsim::workflow {

// The running executable (/proc/self/exe): the lbsim binary the child runs are started with.
std::string self_exe();

// Starts args[0] (looked up on PATH) with stdout and stderr sent to `log` (or inherited when
// empty). Returns the pid; throws UserError when the program cannot be started. With `own_group`
// the child gets a process group of its own, so a Ctrl-C at the terminal reaches only the parent
// (which then stops its children itself, once: run_local).
pid_t spawn(const std::vector<std::string>& args, const std::string& log, bool own_group = false);

// Waits for the child; its exit code, 128 + signal when it was killed, 70 when waiting failed.
int wait_for(pid_t pid);

// Runs the pending points with at most `workers` child processes of `exe`, printing one progress
// line per finished point. A point whose process cannot be started (e.g. the binary is being
// rebuilt) is recorded as failed(127) and the others go on. When `stop` returns true (checked
// whenever a child ends or a signal arrives; e.g. SIGINT to the sweep), no further point starts,
// each running child is sent one SIGINT (it writes its folder and exits 130) and run_local returns
// once they have ended; it then returns the names of the points that were interrupted and of
// those never started.
struct LocalRun {
  std::vector<std::string> interrupted, not_started;
  bool stopped = false;
};
LocalRun run_local(const Sweep& sw, const std::vector<const Point*>& todo, int workers, const std::string& exe,
                   const std::function<bool()>& stop = {});

// Writes slurm/tasks.txt (one pending point per line) and slurm/job.sh (an array job, task i runs
// line i + 1 with `exe`, at most `workers` at once when > 0) and clears the pending points' run
// folders. Returns the path of job.sh.
std::filesystem::path write_slurm_job(const Sweep& sw, const std::vector<const Point*>& todo, int workers,
                                      const std::string& exe);

// Submits the job script with sbatch and `extra` arguments (one array task per point of `todo`, in
// order). With `wait`, watches the job (watch_slurm_job) and returns when it has finished. Throws
// UserError when sbatch does not report a job id.
void submit_slurm_job(const std::filesystem::path& job, const std::vector<const Point*>& todo,
                      const std::vector<std::string>& extra, bool wait);

// Polls squeue (every LBSIM_SLURM_POLL_MS, default 2000 ms) until job `id` has left the queue or
// ended. Throws UserError - after cancelling the job - as soon as a task is held (JobHeldUser,
// JobHeldAdmin, "launch failed requeued held"), cancelled, failed before its run recorded an exit
// code, or ended by the node, a time limit or memory; and when the job ended with a task that never
// recorded its exit code. `dir` is the sweep's slurm/ folder (squeue/sacct output is kept there).
void watch_slurm_job(const std::string& id, const std::vector<const Point*>& todo, const std::filesystem::path& dir);

}  // namespace lbsim::workflow
