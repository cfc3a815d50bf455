# Reference values for tests/test_length_models.py: the length slope of chapter 3 under the
# paper's model and with the annotators random, by lme4 REML and lmerTest's Satterthwaite df.
#
# Run from the repository root:  Rscript tests/reference/length_lmertest.R
# (R 4.2, lme4 1.1-31, lmerTest 3.1-3; Debian's r-cran-lme4 and r-cran-lmertest.)
#
# tests/reference/length_judgements.csv.gz is the book's simulated benchmark (data/, seed and
# parameters of data/simulation.yml): every judgement with the emoji-grapheme count of the
# rated output (sentence_id, system, annotator, rating, count). The test checks that the file
# is what compendium.analyses.length derives from data/.
suppressPackageStartupMessages({library(lme4); library(lmerTest)})
d <- read.csv("tests/reference/length_judgements.csv.gz")
d$sentence_id <- factor(d$sentence_id); d$system <- factor(d$system); d$annotator <- factor(d$annotator)
ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e6),
                    check.conv.singular = "ignore")
models <- list(
  paper = rating ~ count + (1 | sentence_id) + (1 | annotator),
  sounder = rating ~ count + (1 | sentence_id) + (1 | sentence_id:system) + (1 + count || annotator)
)
for (name in names(models)) {
  m <- lmer(models[[name]], data = d, REML = TRUE, control = ctrl)
  co <- summary(m)$coefficients["count", ]
  vc <- as.data.frame(VarCorr(m))
  # lme4 names the groups of (1 + count || annotator) "annotator" and "annotator.1" in either
  # order, and (1 | sentence_id:system) "sentence_id.system": match on the prefix and the term.
  grp <- function(g, v) {
    x <- vc$vcov[sub("\\.1$", "", vc$grp) == g & (is.na(vc$var1) | vc$var1 == v)]
    if (length(x)) x else 0
  }
  out <- c(slope = co[["Estimate"]], se = co[["Std. Error"]], df = co[["df"]], t = co[["t value"]],
           p = co[["Pr(>|t|)"]], var_item = grp("sentence_id", "(Intercept)"),
           var_output = grp("sentence_id.system", "(Intercept)"),
           var_rater = grp("annotator", "(Intercept)"), var_rater_slope = grp("annotator", "count"),
           var_residual = grp("Residual", NA), deviance = unname(REMLcrit(m)))
  for (k in names(out)) cat(sprintf("%s %s %.12g\n", name, k, out[[k]]))
}
