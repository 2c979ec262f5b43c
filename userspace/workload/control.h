// The recorder's control channel, as fscost offers it to a command it runs
// (FSCOST_CONTROL_FD=CTL,ACK; perf record --control's protocol): the
// workload pauses the recording over its untimed setup, so that a profile
// holds the timed phase's operations only.
#pragma once

namespace fscost::workload {

class RecorderControl {
 public:
  // The channel from the environment; none when not run by fscost.
  RecorderControl();
  RecorderControl(const RecorderControl&) = delete;
  RecorderControl& operator=(const RecorderControl&) = delete;

  // Sends "disable" or "enable" and waits for the recorder's "ack": true
  // once the recording has paused or resumed, false without a channel.
  bool pause() { return request("disable\n"); }
  bool resume() { return request("enable\n"); }

 private:
  bool request(const char* line);
  int ctl_ = -1, ack_ = -1;
};

}  // namespace fscost::workload
