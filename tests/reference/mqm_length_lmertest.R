# Reference values for tests/test_real_length.py: the length slope of chapter 3 on REAL data
# (WMT23 en-de MQM), under the paper's model and with the raters random, by lme4 REML and
# lmerTest's Satterthwaite df.
#
# Run from the repository root:  Rscript tests/reference/mqm_length_lmertest.R
# (R 4.2.2, lme4 1.1-31, lmerTest 3.1-3; Debian's r-cran-lme4 and r-cran-lmertest.)
#
# tests/reference/mqm_length_judgements.csv.gz is compendium.analyses.real.length.mqm_judgements()
# of the vendored release (data/real): every MQM judgement (item = segment, system, rater) with
# quality = -MQM, quality_per_word = -MQM / target words, and the translation's length in
# characters / 100 (chars100) and o200k_base tokens / 100 (tokens100). The test checks that the
# file is what the package derives from data/real.
suppressPackageStartupMessages({library(lme4); library(lmerTest)})
d <- read.csv("tests/reference/mqm_length_judgements.csv.gz")
d$item <- factor(d$item); d$system <- factor(d$system); d$rater <- factor(d$rater)
ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e6),
                    check.conv.singular = "ignore")
fits <- list(c("quality", "chars100"), c("quality", "tokens100"), c("quality_per_word", "chars100"))
for (f in fits) {
  y <- f[1]; x <- f[2]
  models <- list(
    paper = as.formula(sprintf("%s ~ %s + (1 | item) + (1 | rater)", y, x)),
    sounder = as.formula(sprintf("%s ~ %s + (1 | item) + (1 | item:system) + (1 + %s || rater)", y, x, x))
  )
  for (name in names(models)) {
    m <- lmer(models[[name]], data = d, REML = TRUE, control = ctrl)
    co <- summary(m)$coefficients[x, ]
    vc <- as.data.frame(VarCorr(m))
    grp <- function(g, v) {
      z <- vc$vcov[sub("\\.1$", "", vc$grp) == g & (is.na(vc$var1) | vc$var1 == v)]
      if (length(z)) z else 0
    }
    out <- c(slope = co[["Estimate"]], se = co[["Std. Error"]], df = co[["df"]], t = co[["t value"]],
             p = co[["Pr(>|t|)"]], var_item = grp("item", "(Intercept)"),
             var_output = grp("item.system", "(Intercept)"),
             var_rater = grp("rater", "(Intercept)"), var_rater_slope = grp("rater", x),
             var_residual = grp("Residual", NA), deviance = unname(REMLcrit(m)))
    for (k in names(out)) cat(sprintf("%s %s %s %s %.12g\n", y, x, name, k, out[[k]]))
  }
}
