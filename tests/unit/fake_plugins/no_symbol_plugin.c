/* A shared object that is not a bootstrap plugin: it exports a function, but not the init symbol. */
__attribute__((visibility("default"))) int gpushmem_bootstrap_plugin_init_v0(void) {
  return 0;
}
