/// What admission decides with besides the directory's counts: the tokens and origins
/// (replaced on SIGHUP) and which refusals were logged.
struct AdmissionState {
  var access: AccessPolicy
  var refusalLog = RefusalLog()
}
