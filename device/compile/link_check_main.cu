// Links the compile-test objects (device/compile/*.cu) into a program: every host/device name's host
// path is a call of an exported libgpushmem symbol under an asm label, and a label that names no symbol
// fails this link. Built, never run.
int main() {
  return 0;
}
