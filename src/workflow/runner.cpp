#include "workflow/runner.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "core/error.h"
#include "core/progress.h"

namespace lbsim::workflow {

namespace fs = std::filesystem;

namespace {

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 70;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The progress word of a finished run (its process's exit code, as results.csv's status names it).
std::string status_of(const Point& p) {
  const int rc = recorded_exit_code(p.cfg.text("output.dir"));
  if (rc == 0) return "ok";
  if (rc == 3) return "unfinished";
  return failed_status(rc);
}

}  // namespace

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot locate the lbsim executable (/proc/self/exe)");
  return p.string();
}

pid_t spawn(const std::vector<std::string>& args, const std::string& log, bool own_group) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // fork + exec rather than posix_spawn: the child ties itself to this process before exec (a
  // driver killed with SIGKILL used to leave its sweep's workers running). A pipe closed on exec
  // carries the errno of a failed exec back.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw UserError(fmt::format("cannot start '{}': pipe: {}", args[0], std::strerror(errno)));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(fds[0]);
    close(fds[1]);
    throw UserError(fmt::format("cannot start '{}': {}", args[0], std::strerror(e)));
  }
  if (pid == 0) {  // the child: async-signal-safe calls only until exec
    close(fds[0]);
    if (own_group) setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);     // killed when the process that started it dies
    if (getppid() != parent) _exit(127);  // it died before prctl
    int e = 0;
    if (!log.empty()) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) e = errno;
    }
    if (e == 0) {
      execvp(argv[0], argv.data());
      e = errno;
    }
    (void)!write(fds[1], &e, sizeof e);
    _exit(127);
  }
  close(fds[1]);
  int e = 0;
  ssize_t n = 0;
  while ((n = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR) {}
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof e)) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    throw UserError(fmt::format("cannot start '{}': {}", args[0], std::strerror(e)));
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 70;
  return exit_code_of(status);
}

LocalRun run_local(const Sweep& sw, const std::vector<const Point*>& todo, int workers, const std::string& exe,
                   const std::function<bool()>& stop) {
  std::map<pid_t, std::pair<const Point*, std::chrono::steady_clock::time_point>> running;
  std::size_t next = 0, done = 0;
  LocalRun result;
  const auto t_start = std::chrono::steady_clock::now();
  // Overall ETA from the points finished so far (progress.h): elapsed * left / done.
  const auto overall = [&] {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    return fmt::format("  elapsed {}, ETA {}", progress::format_duration(el),
                       progress::format_duration(
                           progress::eta_seconds(static_cast<double>(done), static_cast<double>(todo.size()), el)));
  };
  while (done < todo.size()) {
    if (!result.stopped && stop && stop()) {
      // Interrupted: start nothing more and ask each running point to stop (it writes its folder).
      result.stopped = true;
      for (const auto& [pid, what] : running) kill(pid, SIGINT);
      for (std::size_t i = next; i < todo.size(); ++i) result.not_started.push_back(todo[i]->name);
      done += todo.size() - next;
      next = todo.size();
      if (running.empty()) break;
    }
    while (!result.stopped && next < todo.size() && static_cast<int>(running.size()) < workers) {
      const Point* p = todo[next++];
      fs::remove_all(p->cfg.text("output.dir"));
      const std::string log = (sw.out / "logs" / (p->name + ".log")).string();
      try {
        const auto pid = spawn({exe, "run", (sw.out / "points" / (p->name + ".toml")).string(), "--quiet"}, log, true);
        running[pid] = {p, std::chrono::steady_clock::now()};
      } catch (const UserError& e) {  // e.g. the binary is being rebuilt: fail this point only
        fs::create_directories(p->cfg.text("output.dir"));
        write_file(fs::path(p->cfg.text("output.dir")) / ".exit_code", "127\n");
        write_file(log, std::string(e.what()) + "\n");
        ++done;
        fmt::print("[{}/{}] {}: failed(127): {}{}\n", done, todo.size(), p->name, e.what(), overall());
      }
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [p, t0] = it->second;
    running.erase(it);
    const int rc = exit_code_of(status);
    if (rc == 130) result.interrupted.push_back(p->name);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (WIFSIGNALED(status) && rc != 130) {  // its log says why it is empty or cut short
      std::ofstream(sw.out / "logs" / (p->name + ".log"), std::ios::app) << fmt::format(
          "lbsim sweep: this run was killed by {} after {:.1f} s (by the out-of-memory killer, "
          "kill -9 or the system); its folder holds no results. `lbsim sweep` again runs it.\n",
          signal_name(WTERMSIG(status)), secs);
    }
    fs::create_directories(p->cfg.text("output.dir"));
    write_file(fs::path(p->cfg.text("output.dir")) / ".exit_code", fmt::format("{}\n", rc));
    ++done;
    fmt::print("[{}/{}] {}: {} ({:.1f} s){}{}\n", done, todo.size(), p->name, status_of(*p), secs,
               rc == 0 || rc == 3 ? "" : fmt::format(", see logs/{}.log", p->name), overall());
    std::fflush(stdout);
  }
  return result;
}

fs::path write_slurm_job(const Sweep& sw, const std::vector<const Point*>& todo, int workers, const std::string& exe) {
  const fs::path dir = sw.out / "slurm";
  fs::create_directories(dir);
  std::string tasks;
  for (const auto* p : todo) {
    tasks += p->name + "\n";
    fs::remove_all(p->cfg.text("output.dir"));
  }
  write_file(dir / "tasks.txt", tasks);
  const std::string array = fmt::format("0-{}{}", todo.size() - 1, workers > 0 ? fmt::format("%{}", workers) : "");
  const std::string job = fmt::format(
      "#!/bin/bash\n"
      "# Generated by `lbsim sweep --slurm`: one array task per pending grid point ({} tasks).\n"
      "#SBATCH --job-name=lbsim-{}\n"
      "#SBATCH --array={}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output={}\n"
      "set -u\n"
      "OUT={}\n"
      "LBSIM={}\n"
      "name=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$OUT/slurm/tasks.txt\")\n"
      "dir=\"$OUT/runs/$name\"\n"
      "rm -rf \"$dir\"\n"
      "\"$LBSIM\" run \"$OUT/points/$name.toml\" --quiet > \"$OUT/logs/$name.log\" 2>&1\n"
      "rc=$?\n"
      "mkdir -p \"$dir\"\n"
      "echo $rc > \"$dir/.exit_code\"\n"
      "echo \"lbsim sweep task $SLURM_ARRAY_TASK_ID ($name): exit code $rc\"\n"
      "exit $rc\n",
      todo.size(), sw.spec.name, array, (sw.out / "logs" / "slurm-%A_%a.out").string(), shell_quote(sw.out.string()),
      shell_quote(exe));
  write_file(dir / "job.sh", job);
  fs::permissions(dir / "job.sh", fs::perms::owner_exec, fs::perm_options::add);
  return dir / "job.sh";
}

namespace {

struct Captured {
  int rc = 0;
  std::string out;
};

// Runs a Slurm client with its output in `log`; rc 127 when it cannot be started.
Captured capture(const std::vector<std::string>& args, const fs::path& log) {
  Captured c;
  try {
    c.rc = wait_for(spawn(args, log.string()));
  } catch (const UserError& e) {
    return {127, e.what()};
  }
  c.out = read_text(log);
  return c;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const auto e = s.find(sep, pos);
    out.push_back(s.substr(pos, e == std::string::npos ? std::string::npos : e - pos));
    if (e == std::string::npos) return out;
    pos = e + 1;
  }
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Task states after which the task's run will not happen (or not finish): the job must not be
// waited for. A held task (JobHeldUser/JobHeldAdmin, "launch failed requeued held") waits forever.
bool dead_state(const std::string& state, const std::string& reason) {
  static const char* const kDead[] = {"CANCELLED", "NODE_FAIL",    "BOOT_FAIL",    "TIMEOUT", "OUT_OF_MEMORY",
                                      "DEADLINE",  "REQUEUE_HOLD", "SPECIAL_EXIT", "REVOKED"};
  for (const char* d : kDead)
    if (state.rfind(d, 0) == 0) return true;
  const std::string r = lower(reason);
  return r.find("held") != std::string::npos || r.find("dependencyneversatisfied") != std::string::npos;
}

// Array index of "123_4", -1 for anything else ("123_[0-3]", "123").
int array_index(const std::string& task) {
  const auto us = task.rfind('_');
  if (us == std::string::npos || us + 1 >= task.size()) return -1;
  int v = 0;
  for (std::size_t i = us + 1; i < task.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(task[i])) || v > 100000000) return -1;
    v = v * 10 + (task[i] - '0');
  }
  return v;
}

bool recorded(const std::vector<const Point*>& todo, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < todo.size() &&
         recorded_exit_code(todo[static_cast<std::size_t>(index)]->cfg.text("output.dir")) >= 0;
}

std::string task_list(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? "; " : "") + v[i];
  if (v.size() > 5) s += fmt::format("; and {} more", v.size() - 5);
  return s;
}

int poll_ms() {
  const char* e = std::getenv("LBSIM_SLURM_POLL_MS");
  if (e == nullptr || *e == 0) return 2000;
  const int v = std::atoi(e);
  return std::clamp(v, 10, 600000);
}

}  // namespace

void watch_slurm_job(const std::string& id, const std::vector<const Point*>& todo, const fs::path& dir) {
  const fs::path logs = dir.parent_path() / "logs";
  int failures = 0;
  std::string last;
  while (true) {
    const auto q = capture({"squeue", "-h", "-r", "-t", "all", "-j", id, "-o", "%i|%T|%r"}, dir / "squeue.out");
    if (q.rc != 0) {
      // A job that left slurmctld's memory (MinJobAge after its end) is an unknown id: it is done.
      if (q.out.find("Invalid job id") != std::string::npos) break;
      if (++failures >= 30)
        throw UserError(
            fmt::format("Slurm job {}: squeue failed {} times in a row (exit code {}): {}; the job was left as it is "
                        "(scancel {} to stop it, lbsim sweep --collect to gather what finished)",
                        id, failures, q.rc, q.out.empty() ? "(no output)" : q.out, id));
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms()));
      continue;
    }
    failures = 0;
    std::vector<std::string> dead;
    bool active = false;
    for (const auto& line : split(q.out, '\n')) {
      const auto f = split(line, '|');
      if (f.size() < 3) continue;
      const std::string &task = f[0], &state = f[1], &reason = f[2];
      const std::string what = reason.empty() || reason == "None" ? fmt::format("{} {}", task, state)
                                                                  : fmt::format("{} {} ({})", task, state, reason);
      if (dead_state(state, reason) && !recorded(todo, array_index(task)))
        dead.push_back(what);
      else if (state == "FAILED" && !recorded(todo, array_index(task)))
        dead.push_back(what + ": ended before lbsim recorded an exit code");
      else if (state != "COMPLETED" && state != "FAILED")
        active = true;
    }
    if (!dead.empty()) {
      capture({"scancel", id}, dir / "scancel.out");
      throw UserError(
          fmt::format("Slurm job {}: {} task(s) cannot finish: {}. The job was cancelled (scancel {}); the task "
                      "logs are in {} and the reason is in slurmctld/slurmd's logs. Fix the cause and run the "
                      "sweep again (finished runs are kept)",
                      id, dead.size(), task_list(dead), id, logs.string()));
    }
    if (!active) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms()));
  }
  // The job has ended: every task must have recorded its run's exit code.
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < todo.size(); ++i)
    if (!recorded(todo, static_cast<int>(i))) missing.push_back(fmt::format("task {} ({})", i, todo[i]->name));
  if (!missing.empty()) {
    std::string states;
    const auto a = capture({"sacct", "-n", "-X", "-P", "-j", id, "-o", "JobID,State,ExitCode"}, dir / "sacct.out");
    if (a.rc == 0 && !a.out.empty()) states = fmt::format("; sacct says:\n{}", a.out);
    throw UserError(
        fmt::format("Slurm job {} ended but {} task(s) did not record an exit code (failed or cancelled before "
                    "lbsim ran): {}; see the task logs in {}{}",
                    id, missing.size(), task_list(missing), logs.string(), states));
  }
}

void submit_slurm_job(const fs::path& job, const std::vector<const Point*>& todo, const std::vector<std::string>& extra,
                      bool wait) {
  std::vector<std::string> args{"sbatch"};
  for (const auto& a : extra) args.push_back(a);
  args.push_back(job.string());
  const std::string log = (job.parent_path() / "sbatch.log").string();
  fmt::print("sbatch: submitting {} array task(s){}\n", todo.size(), wait ? " and waiting for them" : "");
  std::fflush(stdout);
  const int rc = wait_for(spawn(args, log));
  const std::string out = read_text(log);
  const auto pos = out.find("Submitted batch job ");
  if (pos == std::string::npos)
    throw UserError(fmt::format("sbatch failed (exit code {}): {}", rc, out.empty() ? "(no output)" : out));
  const std::string id = out.substr(pos + 20, out.find_first_of("\r\n", pos) - pos - 20);
  if (wait) {
    fmt::print("sbatch: job {} submitted; watching it with squeue\n", id);
    std::fflush(stdout);
    watch_slurm_job(id, todo, job.parent_path());
  }
  fmt::print("sbatch: job {} {}\n", id, wait ? "finished" : "submitted");
}

}  // namespace lbsim::workflow
