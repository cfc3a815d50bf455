# Reference values for tests/test_gstudy.py: lme4 REML fits of the G-study model on
# three incomplete item x system x rater designs.
#
#   rating ~ 0 + system + (1|item) + (1|rater) + (1|item:system) + (1|item:rater) + (1|system:rater)
#
# Run from the repository root:  Rscript tests/reference/gstudy_lme4.R [REAL_DIR]
# (R 4.2, lme4 1.1-31, Debian's r-cran-lme4; CI does not run R, the test pins the output).
# Two runs agree on the deviances to the digits printed and on the components to about 1e-6 (bobyqa's end
# point moves that much from run to run); the test compares at 1e-4.
#
# REAL_DIR holds the real source files (default /work/shared/real, the shared copy
# the project's data/real/ files are taken from; the sha256 of each is checked, so the
# values are those of the files committed under data/real/):
#   summeval_metrics.jsonl                          (sha256 e05def5f...d212e)
#   wmt23_mqm_sxs_ende.tsv.tar.gz                   (sha256 df9f5af3...9222c)
#   wmt23_mqm_sxs_zhen.tsv.tar.gz                   (sha256 beb5eb98...6b3e2)
#   squality_human_eval/all-responses.jsonl         (sha256 fdefc51d...e422d4; data/real/squality/)
#
# Designs:
#   panels   tests/reference/panels_3of5.csv: simulated, 40 items x 4 systems, each item
#            rated by 3 of 5 raters (gstudy.simulate_incomplete, seed 20261201).
#   summeval SummEval expert coherence; documents sorted by instance_id, the k-th document
#            (k = 0, 1, ...) loses the expert in list position k %% 3 (experts E1, E2, E3 =
#            list positions 0, 1, 2).
#   mqm_zhen WMT23 zh-en MQM, 3 of 8 raters per segment, the same weights; segment = globalSegId.
#   squality SQuALITY human evaluation, overall-rating: item = passage-id/question, system = bart,
#            bart-dpr or human, rater = "W" + worker_id (3 of 4 reviewers per item).
#   mqm      WMT23 en-de MQM, 3 ratings per segment. Segment = doc + globalSegId. Score of a
#            (segment, system, rater) cell = sum of the error weights: HOTW-test rows dropped;
#            category "Source issue" and severity "No-error" weigh 0; Major 5 (25 for
#            "Non-translation!"); Minor 1 (0.1 for "Fluency/Punctuation").
#
# Printed per design: the six variance components, the REML deviance, the fixed effects,
# lmerTest's Satterthwaite F test of the system effect, and G from the fit (system variance observed and unbiased, error variance of a system
# mean: see src/compendium/stats/gstudy.py).
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
real <- if (length(args) >= 1) args[1] else "/work/shared/real"

sha <- function(path) strsplit(system2("sha256sum", shQuote(path), stdout = TRUE), " ")[[1]][1]
stopifnot(sha(file.path(real, "summeval_metrics.jsonl")) ==
            "e05def5f78b1398c36e52f812377cc91aec24fa7dc171b8d77b28fd91f0d212e")
stopifnot(sha(file.path(real, "wmt23_mqm_sxs_ende.tsv.tar.gz")) ==
            "df9f5af3e6498bb9dddc998acc292ea4a34161f8637dd107de6d692ed319222c")

ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e6),
                    check.conv.singular = "ignore")

report <- function(name, d) {
  d$item <- factor(d$item); d$system <- factor(d$system); d$rater <- factor(d$rater)
  m <- lme4::lmer(rating ~ 0 + system + (1 | item) + (1 | rater) + (1 | item:system) + (1 | item:rater) +
              (1 | system:rater), data = d, REML = TRUE, control = ctrl)
  vc <- as.data.frame(VarCorr(m))
  get <- function(g) vc$vcov[vc$grp == g]
  b <- fixef(m); V <- as.matrix(vcov(m)); k <- length(b)
  C <- diag(k) - 1 / k
  obs <- drop(t(b) %*% C %*% b) / k
  err <- sum(diag(C %*% V)) / (k - 1)
  corr <- (drop(t(b) %*% C %*% b) - sum(diag(C %*% V))) / k
  cat(sprintf("%s n %d\n", name, nrow(d)))
  out <- c(item = get("item"), annotator = get("rater"), `item:system` = get("item:system"),
           `item:annotator` = get("item:rater"), `system:annotator` = get("system:rater"),
           residual = get("Residual"), deviance = unname(REMLcrit(m)),
           system_variance_observed = obs, system_variance_raw = corr, error_variance = err)
  for (n in names(out)) cat(sprintf("%s %s %.12g\n", name, n, out[[n]]))
  for (s in names(b)) cat(sprintf("%s beta_%s %.12g\n", name, sub("^system", "", s), b[[s]]))
  # The system effect with items and raters random: lmerTest's Satterthwaite F test.
  mt <- lmerTest::lmer(rating ~ system + (1 | item) + (1 | rater) + (1 | item:system) + (1 | item:rater) +
                         (1 | system:rater), data = d, REML = TRUE, control = ctrl)
  a <- anova(mt, ddf = "Satterthwaite")
  cat(sprintf("%s F %.12g\n%s df1 %.12g\n%s df2 %.12g\n%s p %.12g\n", name, a[["F value"]], name, a[["NumDF"]],
              name, a[["DenDF"]], name, a[["Pr(>F)"]]))
}

# MQM rows without the HOTW-test attention checks, and each row's weight (Source issue and No-error weigh 0).
mqm_rows <- function(tsv) {
  m <- read.delim(tsv, quote = "", comment.char = "", stringsAsFactors = FALSE, fill = TRUE,
                  colClasses = "character")
  m[m$severity != "HOTW-test", ]
}
mqm_weights <- function(m) {
  w <- ifelse(m$severity == "Major", ifelse(m$category == "Non-translation!", 25, 5),
              ifelse(m$severity == "Minor", ifelse(m$category == "Fluency/Punctuation", 0.1, 1), 0))
  w[m$category == "Source issue" | m$severity == "No-error"] <- 0
  w
}

# -- simulated panels, 3 of 5 raters per item
p <- read.csv("tests/reference/panels_3of5.csv")
report("panels", data.frame(item = p$sentence_id, system = p$system, rater = p$annotator, rating = p$rating))

# -- SummEval coherence, one expert dropped per document in rotation
lines <- readLines(file.path(real, "summeval_metrics.jsonl"))
rows <- lapply(lines, function(l) {
  j <- fromJSON(l)
  data.frame(item = j$instance_id, system = j$summarizer_id, rater = paste0("E", 1:3),
             rating = j$metrics$expert$coherence)
})
s <- do.call(rbind, rows)
docs <- sort(unique(s$item))
drop <- (match(s$item, docs) - 1) %% 3
s <- s[as.integer(sub("E", "", s$rater)) - 1 != drop, ]
report("summeval", s)

# -- WMT23 en-de MQM
tmp <- tempfile(); dir.create(tmp)
untar(file.path(real, "wmt23_mqm_sxs_ende.tsv.tar.gz"), exdir = tmp)
tsv <- list.files(tmp, pattern = "\\.tsv$", full.names = TRUE)
m <- mqm_rows(tsv)
w <- mqm_weights(m)
m$item <- paste(m$doc, m$globalSegId, sep = "|")
a <- aggregate(list(rating = w), by = list(item = m$item, system = m$system, rater = m$rater), FUN = sum)
report("mqm", a)

# -- WMT23 zh-en MQM (data/real/README.md section 13), the same weights; globalSegId is unique
zhen_path <- file.path(real, "wmt23_mqm_sxs_zhen.tsv.tar.gz")
stopifnot(sha(zhen_path) == "beb5eb98a34a79ec36212488d9044361ec21c8a2c54f50d509c086246244b3e2")
tmp <- tempfile(); dir.create(tmp)
untar(zhen_path, exdir = tmp)
tsv <- list.files(tmp, pattern = "\\.tsv$", full.names = TRUE)
m <- mqm_rows(tsv)
w <- mqm_weights(m)
a <- aggregate(list(rating = w), by = list(item = m$globalSegId, system = m$system, rater = m$rater), FUN = sum)
report("mqm_zhen", a)

# -- SQuALITY overall rating, 3 of 4 reviewers per item
sq_path <- file.path(real, "squality_human_eval", "all-responses.jsonl")
stopifnot(sha(sq_path) == "fdefc51dae186097b35d09af1e9e355c19e422d4291a9899d2e7adcc87024f02")
sq <- do.call(rbind, lapply(readLines(sq_path), function(l) {
  j <- fromJSON(l, simplifyVector = FALSE)
  do.call(rbind, lapply(names(j$questions), function(q) {
    do.call(rbind, lapply(c("bart", "bart-dpr", "human"), function(sys) {
      do.call(rbind, lapply(j$questions[[q]][[sys]]$reviews, function(r) {
        data.frame(item = paste0(j$`passage-id`, "/", q), system = sys, rater = paste0("W", r$worker_id),
                   rating = as.numeric(r$`overall-rating`))
      }))
    }))
  }))
}))
report("squality", sq)
