# Fixes to kenlm-ex 0.2.1's lm/builder/lmplz_main.cc, applied by `make kenlm`
# (sed -f; the Makefile checks that each took). Upstream KenLM's Boost options
# set these; kenlm-ex's CLI11 port leaves them to chance:
# 1. CLI11 already gives every App a -h/--help flag; adding it again throws, so
#    lmplz refused every command line. Drop CLI11's own help flag first.
s/app\.add_flag("-h,--help", help,/app.set_help_flag(); &/
# 2. The flags --verbose_header, --renumber and --collapse_values write bools
#    that nothing initialises: with stack garbage, --collapse_values came out on
#    and the ARPA file held positive log probabilities. Value-initialise them.
s/^\( *\)bool verbose_header;/\1bool verbose_header = false;/
s/^\( *\)lm::builder::PipelineConfig pipeline;/\1lm::builder::PipelineConfig pipeline{};/
