// See host.hpp.
#include "policy/python/host.hpp"

#include <pybind11/embed.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "util/stop_flag.hpp"

namespace py = pybind11;

namespace edgetrain::policy {
namespace {

class Interpreter {
 public:
  Interpreter() { std::thread([this] { serve(); }).detach(); }  // lives as long as the process

  std::exception_ptr call(const std::function<void()>& job) {
    std::unique_lock lock(mutex_);
    job_ = &job;
    done_ = false;
    changed_.notify_all();
    bool interrupted = false;
    while (!done_) {
      changed_.wait_for(lock, std::chrono::milliseconds(20));
      if (!interrupted && util::stop_requested() && python_thread_ != 0) {
        interrupted = true;
        lock.unlock();  // the interpreter's thread takes the lock without the GIL: never the other way round
        raise_interrupt();
        lock.lock();
      }
    }
    return error_;
  }

 private:
  // KeyboardInterrupt in the interpreter's thread, raised between two of its bytecodes. Asking for the GIL makes
  // the running code let go of it (a pending call would wait: only the thread that started the runtime runs one).
  void raise_interrupt() {
    const PyGILState_STATE gil = PyGILState_Ensure();
    PyThreadState_SetAsyncExc(python_thread_, PyExc_KeyboardInterrupt);
    PyGILState_Release(gil);
  }

  void serve() {
    const py::scoped_interpreter interpreter(false);  // false: edgetrain's SIGINT and SIGTERM handlers stay
    python_thread_ = PyThread_get_thread_ident();
    const py::gil_scoped_release idle;                 // taken for each job only
    for (;;) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return job_ != nullptr; });
      const std::function<void()>* job = job_;
      lock.unlock();
      std::exception_ptr error;
      {
        const py::gil_scoped_acquire gil;
        try {
          (*job)();
        } catch (...) {
          error = std::current_exception();  // a C++ exception: run_python turned Python's into one
        }
      }
      lock.lock();
      job_ = nullptr;
      error_ = error;
      done_ = true;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  const std::function<void()>* job_ = nullptr;
  bool done_ = false;
  std::exception_ptr error_;
  std::atomic<unsigned long> python_thread_{0};
};

Interpreter& interpreter() {
  static Interpreter* the = new Interpreter;  // never destroyed: its thread may hold the GIL at exit
  return *the;
}

std::string one_line(std::string text, size_t at_most = 300) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > at_most) text = text.substr(0, at_most - 3) + "...";
  return text;
}

// FILE:LINE of the exception: the innermost frame in the policy's file, else the innermost frame (a
// SyntaxError names its own place).
std::string place(const py::error_already_set& e, const PolicySource& source) {
  std::string where = source.file;
  if (e.matches(PyExc_SyntaxError)) {
    const py::object value = e.value();
    if (py::hasattr(value, "lineno") && !value.attr("lineno").is_none())
      return py::str(value.attr("filename")).cast<std::string>() + ":" + py::str(value.attr("lineno")).cast<std::string>();
  }
  if (!e.trace()) return where;
  const py::list frames = py::module_::import("traceback").attr("extract_tb")(e.trace());
  std::string innermost;
  for (const py::handle frame : frames) {
    const std::string file = frame.attr("filename").cast<std::string>();
    const std::string at = file + ":" + py::str(frame.attr("lineno")).cast<std::string>();
    if (file == source.file) where = at;
    innermost = at;
  }
  return where != source.file || innermost.empty() ? where : innermost;
}

}  // namespace

void run_python(const PolicySource& source, const char* method, const std::function<void()>& job) {
  const std::function<void()> guarded = [&] {
    try {
      job();
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_KeyboardInterrupt) && util::stop_requested())
        throw util::Interrupted("running the Python policy of " + source.key);
      const std::string type = py::str(e.type().attr("__name__")).cast<std::string>();
      const std::string message = py::str(e.value()).cast<std::string>();
      throw PolicyError(source.key + ": " + place(e, source) + ": " + type + (message.empty() ? "" : ": ") +
                        one_line(message) + " (in " + method + ")");
    } catch (const py::cast_error& e) {
      throw PolicyError(source.key + ": " + source.file + ": " + method + " returned a value of the wrong type (" +
                        one_line(e.what()) + ")");
    }
  };
  if (std::exception_ptr error = interpreter().call(guarded)) std::rethrow_exception(error);
}

}  // namespace edgetrain::policy
