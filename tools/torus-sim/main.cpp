// torus-sim: the command-line front end. The options of `run` and `sweep` come from the
// parameter declarations of RunConfig and MachineConfig, so --help, `params`, scenario files
// and the parser never disagree.

#include <algorithm>
#include <csignal>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sysc/kernel/sc_externs.h>  // sc_main and sc_elab_and_sim, both extern "C"

#include "kernels/text.hpp"
#include "models/simulation.hpp"
#include "sim/algorithm.hpp"
#include "sim/child_process.hpp"
#include "sim/memory_estimate.hpp"
#include "sim/parameter_bundle.hpp"
#include "sim/report.hpp"
#include "sim/run.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep.hpp"
#include "sim/verifier.hpp"
#include "tools/torus-sim/sweep_command.hpp"

namespace {

using torus::ExitCode;
using Settings = std::vector<std::pair<std::string, std::string>>;

int code(ExitCode c) { return static_cast<int>(c); }

// Adds -p key=value (repeatable), collecting the assignments into `given`.
void add_assignment_option(CLI::App& command, Settings& given, const std::string& help) {
  command.add_option_function<std::vector<std::string>>(
      "-p,--param",
      [&given](const std::vector<std::string>& assignments) {
        for (const auto& a : assignments) {
          const auto equals = a.find('=');
          if (equals == std::string::npos || equals == 0)
            throw CLI::ValidationError("-p", "'" + a + "' is not of the form key=value");
          given.emplace_back(a.substr(0, equals), a.substr(equals + 1));
        }
      },
      help);
}

// Adds --key for every declared parameter. Values are collected, not applied, so that they
// override the scenario file, which is read after parsing.
void add_parameter_options(CLI::App& command, const torus::ParameterSet& parameters, Settings& given) {
  for (const auto& spec : parameters.specs()) {
    const std::string help = spec.description + (spec.unit.empty() ? "" : " [" + spec.unit + "]") + " (default: " +
                             (spec.default_value.empty() ? "none" : spec.default_value) + "; allowed: " + spec.allowed + ")";
    command.add_option_function<std::string>(
        "--" + spec.key, [&given, key = spec.key](const std::string& value) { given.emplace_back(key, value); }, help);
  }
  add_assignment_option(command, given, "set a parameter as key=value (repeatable)");
}

struct ScheduleQuery {
  std::string n = "4";  // N or N1xN2xN3
  std::string p = "2";  // P or P1xP2xP3
  std::string boundary = "torus";
  std::string alpha = "+++";
  std::string direction = "forward";
  std::string format = "text";
  std::string algorithm = "orbital";  // `program` only
  std::int64_t max_memory = 0;        // 0 = the memory the system reports available
};

std::array<std::int64_t, 3> extents_of(const char* key, const std::string& text) { return torus::parse_extents(key, text, 1, 4096); }

torus::TorusShape shape_of(const ScheduleQuery& q) {
  const auto p = extents_of("P", q.p);
  return {static_cast<int>(p[0]), static_cast<int>(p[1]), static_cast<int>(p[2]), torus::parse_boundary(q.boundary, static_cast<std::size_t>(p[0] * p[1] * p[2]))};
}

torus::BlockGrid grid_of(const ScheduleQuery& q) {
  const auto n = extents_of("N", q.n), p = extents_of("P", q.p);
  return torus::BlockGrid::make({static_cast<std::size_t>(n[0]), static_cast<std::size_t>(n[1]), static_cast<std::size_t>(n[2])},
                                {static_cast<std::size_t>(p[0]), static_cast<std::size_t>(p[1]), static_cast<std::size_t>(p[2])});
}

// Refuses at once a query whose schedules or output would not fit in memory (sized for the
// largest torus edge: an upper bound for other shapes).
void check_query_memory(const std::string& command, const ScheduleQuery& q) {
  const std::size_t directions = q.direction == "both" ? 2 : 1;
  const auto p = extents_of("P", q.p);
  torus::check_memory(torus::estimate_schedule_command(command, q.format, std::max({p[0], p[1], p[2]}), directions), q.max_memory,
                      "a smaller P");
}

torus::TransformDirection parse_direction(const std::string& text) {
  return text == "inverse" ? torus::TransformDirection::Inverse : torus::TransformDirection::Forward;
}

int print_schedule(const ScheduleQuery& q) {
  const torus::BlockGrid grid = grid_of(q);
  check_query_memory("schedule", q);
  const auto schedule =
      torus::generate_schedule(shape_of(q), grid, torus::SchedulingVector::parse(q.alpha), parse_direction(q.direction));
  if (q.format == "json") std::cout << torus::to_json(schedule).dump(1) << '\n';
  else std::cout << torus::format_text(schedule);
  return code(ExitCode::Success);
}

// `direction` may be "both": one Program then runs the forward and the inverse in order.
int print_program(const ScheduleQuery& q) {
  const torus::BlockGrid grid = grid_of(q);
  const auto algorithm = torus::make_algorithm(q.algorithm);  // names the allowed ones when unknown
  check_query_memory("program", q);
  torus::TransformProblem problem{shape_of(q), grid, torus::SchedulingVector::parse(q.alpha), {}};
  if (q.direction != "inverse") problem.directions.push_back(torus::TransformDirection::Forward);
  if (q.direction != "forward") problem.directions.push_back(torus::TransformDirection::Inverse);
  problem.max_program_bytes = torus::memory_limit(q.max_memory);  // the estimate above fits orbital only
  const torus::Program program = algorithm->build(problem);
  if (q.format == "json") {
    torus::write_json(std::cout, program);
    std::cout << '\n';
  } else {
    torus::write_text(std::cout, program);
  }
  return code(ExitCode::Success);
}

int verify_schedules(const ScheduleQuery& q) {
  check_query_memory("verify", q);
  std::vector<torus::SchedulingVector> vectors;
  if (q.alpha == "all") vectors.assign(torus::all_scheduling_vectors().begin(), torus::all_scheduling_vectors().end());
  else vectors.push_back(torus::SchedulingVector::parse(q.alpha));
  std::vector<torus::TransformDirection> directions;
  if (q.direction != "inverse") directions.push_back(torus::TransformDirection::Forward);
  if (q.direction != "forward") directions.push_back(torus::TransformDirection::Inverse);
  bool all_ok = true;
  for (const auto& alpha : vectors)
    for (const auto direction : directions) {
      const auto schedule = torus::generate_schedule(shape_of(q), 1, alpha, direction);
      const auto report = torus::verify_schedule(schedule);
      std::cout << "P=" << q.p << " alpha=" << alpha.to_string() << " " << torus::to_string(direction) << ": "
                << (report.ok() ? "legal" : "ILLEGAL") << " (" << report.block_multiply_adds_checked
                << " block multiply-adds, " << report.rolls_checked << " rolls checked)\n";
      for (const auto& v : report.violations) std::cout << "  " << torus::to_string(v) << '\n';
      all_ok = all_ok && report.ok();
    }
  return code(all_ok ? ExitCode::Success : ExitCode::GoldenMismatch);
}

// `run` times one point: a swept parameter not given on the command line takes the value set
// outside sweep: (or its default). Said once, since a user may expect the sweep; a sweep's own
// points give every swept key, so their logs stay quiet.
void note_unswept(const torus::Scenario& scenario, const Settings& given) {
  std::vector<std::string> unswept;
  for (const torus::SweepAxis& axis : scenario.sweep)
    if (std::none_of(given.begin(), given.end(), [&](const auto& kv) { return kv.first == axis.key; }))
      unswept.push_back(axis.key);
  if (unswept.empty()) return;
  std::string keys;
  for (const std::string& key : unswept) keys += (keys.empty() ? "" : ", ") + key;
  std::cerr << "torus-sim: note: " << scenario.path << " has a sweep: run times one point, with " << keys
            << " as set outside sweep: or by default; torus-sim sweep runs every point\n";
}

// Returns the scenario's documents (the file and its includes), which the run must not overwrite.
std::vector<std::string> apply(torus::ParameterSet& parameters, const std::string& scenario, const Settings& given) {
  // --key and -p key=value are the same setting: one given twice would silently lose a value.
  for (auto it = given.begin(); it != given.end(); ++it)
    for (auto later = std::next(it); later != given.end(); ++later)
      if (later->first == it->first)
        throw std::invalid_argument(it->first + ": given twice on the command line ('" + it->second + "' and '" +
                                    later->second + "'); allowed: once, as --" + it->first + " or -p " + it->first +
                                    "=VALUE");
  std::vector<std::string> files;
  if (!scenario.empty()) {
    const torus::Scenario loaded = torus::load_scenario(scenario, parameters);
    files = loaded.files;
    note_unswept(loaded, given);
  }
  for (const auto& [key, value] : given) parameters.set(key, value);
  return files;
}

// Plots are drawn by tools/report.py with Debian's matplotlib, hence Debian's interpreter. It
// runs with an argument vector, never through a shell: folder names may hold quotes and ';'.
// The script exits 2 for results it cannot read or a folder it may not write, 4 otherwise.
int render_report(const std::string& results, const std::string& out) {
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> args = {python, TORUS_REPORT_SCRIPT};
  if (!out.empty()) args.insert(args.end(), {"--out", out});
  args.insert(args.end(), {"--", results});
  const int status = torus::run_child(args);
  if (status == code(ExitCode::Success) || status == code(ExitCode::UsageError)) return status;
  std::cerr << "torus-sim: the report could not be rendered (see the message above)\n";
  return code(ExitCode::RuntimeFailure);
}

// CLI11 takes the value of an unknown --option for the positional scenario file and reports
// "scenario: File does not exist: 64"; this names the option instead, with the likely
// spelling ("--fma-latency" is "--fma_latency").
std::string unknown_option(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return "";
  const auto named = app.get_subcommands([&](const CLI::App* c) { return c->get_name() == argv[1]; });
  if (named.empty()) return "";
  const CLI::App& command = *named.front();
  const auto option_like = [](const std::string& name) {  // "--+" is a value (alpha), not an option
    return !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
           std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
  };
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return "";
    if (!arg.starts_with("--")) continue;
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (!option_like(name)) continue;
    if (const CLI::Option* known = command.get_option_no_throw("--" + name)) {
      if (equals == std::string::npos && known->get_items_expected_min() > 0) ++i;  // its value, whatever it looks like
      continue;
    }
    std::string underscored = name;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    if (underscored != name && command.get_option_no_throw("--" + underscored) != nullptr)
      return "unknown option '--" + name + "' (did you mean '--" + underscored + "'? parameters are spelt with underscores)";
    std::vector<std::string> known;
    for (const CLI::Option* option : command.get_options())
      for (const std::string& long_name : option->get_lnames()) known.push_back(long_name);
    return "unknown option '--" + name + "'" + torus::suggestion(name, known) + "; --help lists them";
  }
  return "";
}

std::string own_executable(const char* argv0) {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(argv0) : self.string();
}

// On a terminal, a long run's progress line is rewritten in place on stderr; elsewhere (logs,
// pipes, sweeps) nothing is shown.
torus::ProgressDisplay terminal_progress() {
  if (::isatty(STDERR_FILENO) == 0) return {};
  return [](const std::string& line) {
    if (line.empty()) std::cerr << '\n';
    else std::cerr << '\r' << line << "\x1b[K" << std::flush;  // erase what a longer line left
  };
}

// A report that did not reach standard output (a full disk, a closed pipe) is a failure, not
// a success: `torus-sim params > /dev/full` must not exit 0.
int with_stdout_checked(int status) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.fail()) return status;
  std::cerr << "torus-sim: cannot write standard output" << (errno != 0 ? std::string(": ") + std::strerror(errno) : "") << '\n';
  return status == code(ExitCode::Success) ? code(ExitCode::RuntimeFailure) : status;
}

}  // namespace

// Our own main, so SystemC's banner can be switched off before SystemC starts; SystemC then
// calls sc_main.
int main(int argc, char** argv) {
  torus::die_with_parent_if_tied();  // a sweep point of an MPI rank dies with its rank
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return with_stdout_checked(sc_core::sc_elab_and_sim(argc, argv));
}

int sc_main(int argc, char** argv) {
  CLI::App app{"torus-sim: orbital 3D transforms on a simulated P x P x P torus of fma nodes"};
  app.require_subcommand(1);
  app.footer("Exit codes: 0 pass; 2 input problems (bad parameters, scenario or input files, usage); 3 golden mismatch "
             "or illegal schedule; 4 runtime failure (a file that cannot be written, a crash); 5 stalled (the watchdog "
             "stopped a run that made no progress). A sweep exits with the largest exit code among its points (a point "
             "killed by a signal counts as 4) and names it.");

  torus::ParameterBundle bundle;
  torus::RunConfig& config = bundle.run;
  torus::MachineConfig& machine = bundle.machine;
  torus::ParameterSet& parameters = bundle.set;

  Settings given;
  std::string scenario;
  CLI::App* run = app.add_subcommand("run", "simulate a transform on the torus, golden-check it and report");
  run->add_option("scenario", scenario, "scenario file (YAML); options given here override it")->check(CLI::ExistingFile);
  add_parameter_options(*run, parameters, given);

  torus::SweepOptions sweep_options;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run every point of a scenario's sweep, each in its own process (under mpirun: across its ranks)");
  sweep->add_option("scenario", sweep_options.scenario, "scenario file (YAML) with a sweep: section")
      ->required()
      ->check(CLI::ExistingFile);
  sweep->add_option("-j,--jobs", sweep_options.jobs, "points to run at once")->check(CLI::Range(1, 256));
  sweep->add_option("--out", sweep_options.out_dir, "results folder (default: <scenario>-results)");
  sweep->add_option("--rank-timeout,--rank_timeout", sweep_options.rank_timeout,
                    "under mpirun: seconds without a word from a rank after which it is taken for dead and its points "
                    "run elsewhere (and after which ranks give up on a silent rank 0)")
      ->check(CLI::Range(3u, 86400u))
      ->capture_default_str();
  Settings sweep_given;
  add_assignment_option(*sweep, sweep_given, "set a parameter for every point as key=value (repeatable)");
  bool dry_run = false;
  sweep->add_flag("--dry-run,--dry_run", dry_run, "plan the sweep and list its points (swept values) without running them");

  ScheduleQuery query;
  CLI::App* schedule = app.add_subcommand("schedule", "print the orbital schedule as text or JSON");
  CLI::App* verify = app.add_subcommand("verify", "prove schedules legal for P, alpha and direction, without simulating");
  CLI::App* program = app.add_subcommand("program", "print an algorithm's Program (per-node task lists) as text or JSON");
  for (CLI::App* command : {schedule, verify, program}) {
    const bool both = command != schedule;
    command->add_option("--P", query.p, "torus extents (nodes): P or P1xP2xP3, each 1 to 4096");
    command->add_option("--max_memory", query.max_memory,
                        "refuse when the estimated memory exceeds this many bytes (default: the memory the system "
                        "reports available)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 50));
    command->add_option("--alpha", query.alpha, command == verify ? "scheduling vector, or 'all'" : "scheduling vector");
    command->add_option("--direction", query.direction, "forward, inverse" + std::string(both ? " or both" : ""))
        ->check(CLI::IsMember(both ? std::vector<std::string>{"forward", "inverse", "both"}
                                   : std::vector<std::string>{"forward", "inverse"}));
  }
  for (CLI::App* command : {schedule, program}) {
    command->add_option("--N", query.n, "tensor extents (elements): N or N1xN2xN3, each 1 to 4096");
    command->add_option("--format", query.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  }
  program->add_option("--boundary", query.boundary, "torus, mesh, or one per axis such as torus,mesh,mesh (default: torus)");
  program->add_option("--algorithm", query.algorithm,
                      "algorithm that builds the Program (default: orbital; allowed: " + torus::join(torus::algorithm_names(), ", ") + ")");

  std::string results, report_out;
  CLI::App* report_command = app.add_subcommand("report", "render saved results (a sweep folder or a run's JSON) as Markdown and HTML with plots");
  report_command->add_option("results", results, "sweep results folder, or a --report_json file")->required()->check(CLI::ExistingPath);
  report_command->add_option("--out", report_out, "folder for report.md, report.html and plots/");

  CLI::App* params = app.add_subcommand("params", "list every parameter with unit, default, range and description");
  std::string params_format = "text";
  params->add_option("--format", params_format, "text or markdown")->check(CLI::IsMember({"text", "markdown"}));

  if (const std::string unknown = unknown_option(app, argc, argv); !unknown.empty()) {
    std::cerr << "torus-sim " << argv[1] << ": " << unknown << '\n';
    return code(ExitCode::UsageError);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : code(ExitCode::UsageError);
  }

  try {
    if (params->parsed()) {
      std::cout << (params_format == "markdown" ? torus::format_parameter_markdown(parameters.specs())
                                                : torus::format_parameter_table(parameters.specs()));
      return code(ExitCode::Success);
    }
    if (schedule->parsed()) return print_schedule(query);
    if (program->parsed()) return print_program(query);
    if (report_command->parsed()) return render_report(results, report_out);
    if (verify->parsed()) return verify_schedules(query);
    if (sweep->parsed()) {
      sweep_options.overrides = sweep_given;
      sweep_options.executable = own_executable(argv[0]);
      return dry_run ? torus_cli::list_sweep(sweep_options) : torus_cli::sweep_command(sweep_options);
    }
    config.scenario_files = apply(parameters, scenario, given);
    torus::check_engine(bundle.fault, machine.engine);
    const torus::RunReport report = machine.engine == "functional"
                                        ? torus::run_functional(config, machine)
                                        : torus::simulate(config, machine, bundle.fault, terminal_progress());
    std::cout << torus::format_text(report);
    if (!report.passed()) {
      std::cerr << "torus-sim: golden check failed\n";
      return code(ExitCode::GoldenMismatch);
    }
    return code(ExitCode::Success);
  } catch (const std::invalid_argument& e) {
    std::cerr << "torus-sim: " << e.what() << '\n';
    return code(ExitCode::UsageError);
  } catch (const torus::StallError& e) {
    std::cerr << "torus-sim: stalled: " << e.what() << '\n';
    return code(ExitCode::Stalled);
  } catch (const std::exception& e) {
    std::cerr << "torus-sim: " << e.what() << '\n';
    return code(ExitCode::RuntimeFailure);
  }
}
