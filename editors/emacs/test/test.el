;;; test.el --- End-to-end test of sessionls.el with eglot in batch Emacs  -*- lexical-binding: t; -*-

;; emacs --batch -l test.el, with SESSIONLS_BIN, SESSIONLS_EL_DIR,
;; SESSIONLS_FILE (a scratch copy of a session file) and SESSIONLS_TMP.
;; Every expected value comes from the sessionls CLI on the same content.
;; Ends with kill-emacs 0 (all checks passed) or 1.

(require 'cl-lib)
(require 'subr-x)
(require 'json)

(defvar st-bin (getenv "SESSIONLS_BIN"))
(defvar st-file (getenv "SESSIONLS_FILE"))
(defvar st-tmp (getenv "SESSIONLS_TMP"))
(defvar st-checks 0)
(defconst st-wait 10.0 "Seconds to wait for the server.")

(defun st-log (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun st-ok (cond fmt &rest args)
  (cl-incf st-checks)
  (unless cond
    (error "%s" (apply #'format fmt args))))

(defvar st-bad-position nil
  "Set when the server sent a position inside a surrogate pair.")

(defun st-check-column (column)
  "Record COLUMN if it splits a character outside the BMP on this line.
eglot 1.9's `eglot-move-to-lsp-abiding-column' loops forever on such a
column; this :before-until advice reports it and moves to the line end."
  (let ((text (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
        (units 0) (i 0) (split nil))
    (while (and (< i (length text)) (< units column))
      (setq units (+ units (if (> (aref text i) #xFFFF) 2 1)) i (1+ i)))
    (when (> units column)
      (setq split t
            st-bad-position (format "the server sent UTF-16 column %d, inside a surrogate pair, on line %d: %s"
                                    column (line-number-at-pos) text))
      (end-of-line))
    split))

(defun st-wait-for (pred)
  "Process server output until PRED returns non-nil or `st-wait' passes."
  (let ((deadline (+ (float-time) st-wait))
        result)
    (while (and (not (setq result (funcall pred)))
                (< (float-time) deadline))
      (when st-bad-position (error "%s" st-bad-position))
      (accept-process-output nil 0.05)
      ;; Idle timers (eglot's didChange, flymake's, the lens refresh) do
      ;; not run in batch: do their work.
      (when (bound-and-true-p eglot--managed-mode) (eglot--signal-textDocument/didChange))
      (when (bound-and-true-p flymake-mode) (flymake-start))
      (when (bound-and-true-p sessionls--lens-timer)
        (timer-event-handler sessionls--lens-timer)))
    result))

;;;; The CLI oracle

(defun st-cli (&rest args)
  "Run the sessionls CLI with ARGS and parse the JSON it prints."
  (with-temp-buffer
    (let ((code (apply #'call-process st-bin nil (list t nil) nil args)))
      (condition-case err
          (progn
            (goto-char (point-min))
            (json-parse-buffer :object-type 'plist :array-type 'list
                               :null-object nil :false-object :false))
        (error (error "sessionls %s (exit %s) printed no JSON: %s (%S)"
                      (string-join args " ") code (buffer-string) err))))))

(defun st-buffer-to-file (name)
  "Write the current buffer's text, as the server has it, to a scratch file."
  (let ((path (expand-file-name name st-tmp))
        (coding-system-for-write 'utf-8-unix))
    (write-region nil nil path nil 'silent)
    path))

;;;; Expected lenses, from `sessionls budget' JSON

(defun st-thousands (n)
  (let* ((s (number-to-string n))
         (neg (string-prefix-p "-" s))
         (digits (if neg (substring s 1) s))
         (out ""))
    (while (> (length digits) 3)
      (setq out (concat "," (substring digits -3) out)
            digits (substring digits 0 -3)))
    (concat (if neg "-" "") digits out)))

(defun st-plural (n word)
  (format "%s %s%s" (st-thousands n) word (if (= n 1) "" "s")))

(defun st-trimmed (n)
  "The end of the ✂ lens: how many of the messages above the cut are trimmed."
  (cond ((= n 0) "nothing trimmed")
        ((= n 1) "1 message above is trimmed")
        (t (format "%s above are trimmed" (st-plural n "message")))))

(defconst st-refusals
  '("invalid-json" "invalid-record" "truncated-record" "interleaved-record" "zero-filled" "split-record")
  "The codes of a line the runtime refuses: JSON.parse's and the record
rules' verdicts, and the causes of damage (analysis.IsRefusal).")

(defun st-first-invalid-line (findings)
  "The line where loadSession throws, from check FINDINGS; nil if it loads."
  (let (first)
    (dolist (f findings first)
      (when (and (equal (plist-get f :severity) "error")
                 (member (plist-get f :code) st-refusals)
                 (or (null first) (< (plist-get f :line) first)))
        (setq first (plist-get f :line))))))

(defun st-expected-lenses (bj budget findings)
  "The lenses (LINE . TITLE) for budget JSON BJ (--max-chars BUDGET, nil
for none) and check FINDINGS, with the titles of lsp/lenses.go.
When the file does not load, the CLI's budget JSON has no units or
totals while the server counts the valid lines: then the result is
\(partial . BUDGET-LENS), BUDGET-LENS being (LINE . TITLE) or, without
a budget, (LINE . REGEXP)."
  (let* ((units (plist-get bj :units))
         (invalid (st-first-invalid-line findings))
         (from 0)
         (from-newest (make-vector (length units) 0))
         out)
    (cl-loop for i downfrom (1- (length units)) to 0
             do (setq from (+ from (plist-get (nth i units) :chars)))
             (aset from-newest i from))
    (cl-loop for u in units for i from 0
             do (push (cons (plist-get u :startLine)
                            (format "%s chars · %s · %s from newest"
                                    (st-thousands (plist-get u :chars))
                                    (st-plural (plist-get u :messages) "message")
                                    (st-thousands (aref from-newest i))))
                      out))
    (let ((cutoff (plist-get bj :cutoff))
          (err (plist-get bj :error)))
      (cond
       ((and invalid (null units))
        (cons 'partial
              (if budget
                  (cons 1 (format "✂ budget %s: the file does not load (line %d is invalid)"
                                  (st-thousands budget) invalid))
                (cons 1 (format "\\`Σ [0-9,]+ chars · [0-9,]+ messages? · the file does not load (line %d is invalid)\\'"
                                invalid)))))
       (t
        (cond ((null budget)
               (push (cons 1 (format "Σ %s chars · %s · set a context budget"
                                     (st-thousands (plist-get bj :totalChars))
                                     (st-plural (plist-get bj :messages) "message")))
                     out))
              (invalid
               (push (cons 1 (format "✂ budget %s: the file does not load (line %d is invalid)"
                                     (st-thousands budget) invalid))
                     out))
              (cutoff
               (let* ((first (plist-get cutoff :firstKeptLine))
                      (last (plist-get (car (last units)) :endLine))
                      (kept (cl-loop for u in units when (>= (plist-get u :startLine) first)
                                     sum (plist-get u :messages))))
                 (push (cons first
                             (format "✂ budget %s · keeps %s · %s chars · %s"
                                     (st-thousands budget)
                                     (if (= first last) (format "line %d" first)
                                       (format "lines %d–%d" first last))
                                     (st-thousands (plist-get cutoff :keptChars))
                                     (st-trimmed (- (plist-get bj :messages) kept))))
                       out)))
              (err
               ;; Too small for the newest unit: the lens adds the least
               ;; budget that works (the CLI's minBudget).
               (when (and (plist-get bj :minBudget)
                          (equal err "context budget cannot contain the smallest consistent message unit"))
                 (setq err (format "%s; the least budget that works is %s"
                                   err (st-thousands (plist-get bj :minBudget)))))
               (push (cons (if units (plist-get (car (last units)) :startLine) 1)
                           (format "✂ budget %s: %s" (st-thousands budget) err))
                     out)))
        (st-sort-lenses out))))))

(defun st-lenses-match (got want)
  "GOT (sorted (LINE . TITLE)) matches WANT from `st-expected-lenses'."
  (if (eq (car-safe want) 'partial)
      (let ((budget-lenses (cl-remove-if-not
                            (lambda (p) (string-match-p "\\`[Σ✂]" (cdr p))) got))
            (w (cdr want)))
        (and (= (length budget-lenses) 1)
             (= (car (car budget-lenses)) (car w))
             (if (string-prefix-p "\\`" (cdr w))
                 (string-match-p (cdr w) (cdr (car budget-lenses)))
               (equal (cdr (car budget-lenses)) (cdr w)))))
    (equal got want)))

(defun st-show-want (want)
  (if (eq (car-safe want) 'partial)
      (format "  %d: %s   (only the budget lens: the CLI gives no units for a file that does not load)"
              (car (cdr want)) (cdr (cdr want)))
    (st-show-lenses want)))

(defun st-sort-lenses (pairs)
  (sort (copy-sequence pairs)
        (lambda (a b) (if (= (car a) (car b))
                          (string< (cdr a) (cdr b))
                        (< (car a) (car b))))))

(defun st-show-lenses (pairs)
  (mapconcat (lambda (p) (format "  %d: %s" (car p) (cdr p))) pairs "\n"))

(defun st-budget-json (budget)
  "`sessionls budget' JSON of the buffer; without BUDGET ask for 2^53 (the
CLI needs --max-chars; the units do not depend on it)."
  (st-cli "budget" "--format" "json" "--max-chars"
          (if budget (number-to-string budget) "9007199254740992")
          (st-buffer-to-file "budget.jsonl")))

(defvar st-disabled nil "Finding codes turned off by `sessionls-checks' in the test.")

(defun st-check-json (budget &optional name)
  "`sessionls check' JSON of the buffer, with --budget BUDGET when set."
  (apply #'st-cli "check" "--format" "json"
         (append (and budget (list "--budget" (number-to-string budget)))
                 (and st-disabled (list "--disable" (string-join st-disabled ",")))
                 (list (st-buffer-to-file (or name "check.jsonl"))))))

(defun st-expect (budget)
  "The lenses the server must show for the buffer and BUDGET."
  (st-expected-lenses (st-budget-json budget) budget (st-check-json budget)))

(defun st-check-lenses (what want server)
  "Ask SERVER for lenses and compare; then wait for the overlays to agree."
  (let ((got (st-sort-lenses (sessionls-lenses server))))
    (st-ok (st-lenses-match got want) "%s: codeLens differ.\nwant:\n%s\ngot:\n%s"
           what (st-show-want want) (st-show-lenses got)))
  (st-ok (st-wait-for (lambda () (st-lenses-match (st-overlay-lenses) want)))
         "%s: lens overlays differ.\nwant:\n%s\ngot:\n%s"
         what (st-show-want want) (st-show-lenses (st-overlay-lenses)))
  (st-log "ok   %s: textDocument/codeLens and overlays agree%s" what
          (if (eq (car-safe want) 'partial) " (budget lens only)" "")))

(defun st-overlay-lenses ()
  "The lenses `sessionls-lens-mode' shows, as (LINE . TITLE)."
  (let (out)
    (dolist (ov sessionls--lens-overlays)
      (when (overlay-buffer ov)
        (dolist (title (overlay-get ov 'sessionls-lens))
          (push (cons (line-number-at-pos (overlay-start ov)) title) out))))
    (st-sort-lenses out)))

;;;; Diagnostics

(defun st-utf16-to-chars (text col16)
  "The character index in TEXT of the 0-based UTF-16 column COL16."
  (let ((units 0) (i 0))
    (while (and (< i (length text)) (< units col16))
      (setq units (+ units (if (> (aref text i) #xFFFF) 2 1))
            i (1+ i)))
    i))

(defun st-line-text (line)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun st-flymake-position (f)
  "Where flymake puts finding F, as (LINE COL), COL in characters.
That is F's start, except that eglot hands an empty range (one at
the end of a line) to `flymake-diag-region', which moves forward
the UTF-16 column as if it counted characters: on a line with
characters outside the BMP, that lands on the next line."
  (let* ((line (plist-get f :line))
         (text (st-line-text line))
         (beg (st-utf16-to-chars text (1- (plist-get f :column))))
         (end (if (= (plist-get f :endLine) line)
                  (st-utf16-to-chars text (1- (plist-get f :endColumn)))
                (1+ (length text)))))
    (if (< beg end)
        (list line beg)
      (let ((region (flymake-diag-region (current-buffer) line (1- (plist-get f :column)))))
        (save-excursion
          (goto-char (car region))
          (list (line-number-at-pos) (- (point) (line-beginning-position))))))))

(defun st-fades-p ()
  "Whether eglot tells the server it shows Unnecessary-tagged ranges.
Then the server fades the trimmed lines instead of reporting
budget-cutoff on the first kept line."
  (and (boundp 'eglot--tag-faces) (assq 1 eglot--tag-faces) t))

(defun st-faded-diag (f)
  "The faded region the server publishes for the CLI's budget-cutoff
finding F (on the first kept line), as (LINE COL TYPE MESSAGE); nil when
no line is trimmed.  The budget and the trimmed messages are read from
F's message: \"budget 8,000 keeps …; 11 messages above are trimmed\"."
  (let ((line (plist-get f :line))
        (msg (plist-get f :message)))
    (when (> line 1)
      (st-ok (string-match "\\`budget \\([0-9,]+\\) keeps" msg)
             "cannot read the budget from the budget-cutoff message %S" msg)
      (let ((budget (match-string 1 msg))
            (dropped (if (string-match "; \\([0-9,]+\\) messages? above [a-z]+ trimmed\\'" msg)
                         (string-to-number (replace-regexp-in-string "," "" (match-string 1 msg)))
                       0))
            (last (1- line)))
        (list 1 0 'eglot-note
              (format "sessionls [budget-cutoff]: trimmed by budget %s: the model will not see %s (%s)"
                      budget (if (= last 1) "line 1" (format "lines 1–%d" last))
                      (st-plural dropped "message")))))))

(defun st-expected-diags (findings)
  "CLI FINDINGS as (LINE COL TYPE MESSAGE), COL in characters."
  (st-sort-diags
   (delq nil
         (cl-loop for f in findings
                  for sev = (plist-get f :severity)
                  when (member sev '("error" "warning" "info"))
                  collect (if (and (st-fades-p) (equal (plist-get f :code) "budget-cutoff"))
                              (st-faded-diag f)
                            (append (st-flymake-position f)
                                    (list (pcase sev ("error" 'eglot-error) ("warning" 'eglot-warning) (_ 'eglot-note))
                                          (format "sessionls [%s]: %s" (plist-get f :code)
                                                  (plist-get f :message)))))))))

(defun st-check-faded (n)
  "With budget N, the trimmed lines are one faded flymake diagnostic."
  (let* ((cut (plist-get (plist-get (st-budget-json n) :cutoff) :firstKeptLine))
         (ds (cl-remove-if-not (lambda (d) (string-match-p "\\[budget-cutoff\\]" (flymake-diagnostic-text d)))
                               (flymake-diagnostics))))
    (st-ok (> cut 1) "budget %d trims nothing: the fade check would be vacuous" n)
    (st-ok (= (length ds) 1) "%d budget-cutoff diagnostics, want 1" (length ds))
    (let* ((d (car ds))
           (end (save-excursion (goto-char (point-min)) (forward-line (- cut 2)) (line-end-position)))
           (ov (cl-find-if (lambda (o) (eq (overlay-get o 'flymake-diagnostic) d))
                           (overlays-in (point-min) (point-max))))
           (face (and ov (overlay-get ov 'face))))
      (st-ok (and (= (flymake-diagnostic-beg d) (point-min)) (= (flymake-diagnostic-end d) end))
             "the faded diagnostic spans %d-%d, want %d-%d (lines 1-%d)"
             (flymake-diagnostic-beg d) (flymake-diagnostic-end d) (point-min) end (1- cut))
      (st-ok (memq 'eglot-diagnostic-tag-unnecessary-face (if (listp face) face (list face)))
             "the trimmed lines are not drawn with eglot-diagnostic-tag-unnecessary-face: face %S" face)
      (st-log "ok   lines 1-%d (trimmed by budget %d) are one diagnostic drawn with %S" (1- cut) n face))))

(defun st-flymake-diags ()
  "Flymake's diagnostics from eglot as (LINE COL TYPE MESSAGE)."
  (st-sort-diags
   (cl-loop for d in (flymake-diagnostics)
            for type = (flymake-diagnostic-type d)
            when (memq type '(eglot-error eglot-warning eglot-note))
            collect (save-excursion
                      (goto-char (flymake-diagnostic-beg d))
                      (list (line-number-at-pos) (- (point) (line-beginning-position))
                            type (flymake-diagnostic-text d))))))

(defun st-sort-diags (list)
  (sort list (lambda (a b) (string< (format "%06d %06d %s" (nth 0 a) (nth 1 a) (nth 3 a))
                                    (format "%06d %06d %s" (nth 0 b) (nth 1 b) (nth 3 b))))))

(defun st-show-diags (list)
  (mapconcat (lambda (d) (format "  %d:%d %s %s" (nth 0 d) (nth 1 d) (nth 2 d) (nth 3 d)))
             list "\n"))

(defun st-check-diags (what &optional budget)
  "Wait until flymake shows what `sessionls check [--budget BUDGET]' says."
  (let* ((want (st-expected-diags (st-check-json budget)))
         (_ (st-ok want "%s: the CLI reports nothing: a vacuous comparison" what))
         (done (st-wait-for (lambda () (equal (st-flymake-diags) want)))))
    (st-ok done "%s: flymake diagnostics differ.\nwant (from sessionls check):\n%s\ngot:\n%s"
           what (st-show-diags want) (st-show-diags (st-flymake-diags)))
    (st-log "ok   %s: %d diagnostics" what (length want))
    want))

;;;; The test

(defun st-run ()
  (dolist (v '(st-bin st-file st-tmp))
    (unless (symbol-value v) (error "%s is not set" v)))
  (add-to-list 'load-path (getenv "SESSIONLS_EL_DIR"))
  (require 'eglot)
  (require 'flymake)
  (require 'sessionls)
  (advice-add 'eglot-move-to-lsp-abiding-column :before-until #'st-check-column)
  (setq sessionls-program st-bin
        eglot-sync-connect t
        eglot-autoshutdown t
        ;; Report diagnostics as they come (eglot parks them otherwise).
        flymake-no-changes-timeout 0.1)
  (st-log "emacs %s, %s" emacs-version
          (file-name-nondirectory (directory-file-name (file-name-directory (locate-library "eglot")))))

  ;; initializationOptions as sent: an object, arrays for the lists.
  (let ((enc (lambda () (json-serialize (sessionls--initialization-options nil)
                                        :null-object nil :false-object :json-false))))
    (st-ok (equal (funcall enc) "{}") "empty initializationOptions encode as %s" (funcall enc))
    (let ((sessionls-budget 8000) (sessionls-checks '("swept-message")) (sessionls-files '("**/*.jsonl")))
      (st-ok (equal (funcall enc) "{\"budget\":8000,\"checks\":[\"swept-message\"],\"files\":[\"**/*.jsonl\"]}")
             "initializationOptions encode as %s" (funcall enc))))
  (st-log "ok   initializationOptions encode as JSON objects and arrays")

  (find-file st-file)
  (st-ok (eq major-mode 'sessionls-jsonl-mode) "major mode is %s, want sessionls-jsonl-mode" major-mode)
  (st-ok (derived-mode-p (if (fboundp 'js-json-mode) 'js-json-mode 'js-mode))
         "sessionls-jsonl-mode derives from neither js-json-mode nor js-mode")
  (st-log "ok   *.jsonl opens in sessionls-jsonl-mode")
  (st-ok (eq (key-binding (kbd "M-.")) #'xref-find-definitions)
         "M-. runs %S in a session buffer, want xref-find-definitions" (key-binding (kbd "M-.")))
  (st-log "ok   M-. is xref-find-definitions (not js-mode's js-find-symbol)")

  ;; eglot-ensure connects from post-command-hook: run it as a command would.
  (eglot-ensure)
  (run-hooks 'post-command-hook)
  (st-ok (st-wait-for (lambda () (eglot-current-server))) "eglot started no server")
  (let ((server (eglot-current-server)))
    (st-ok (equal (eglot--language-id server) "jsonl") "language id %S, want \"jsonl\""
           (eglot--language-id server))
    (st-ok (equal (car (process-command (jsonrpc--process server))) st-bin)
           "server command %S does not start with %s" (process-command (jsonrpc--process server)) st-bin)
    (st-log "ok   eglot started %s" (string-join (process-command (jsonrpc--process server)) " "))

    ;; 1. Diagnostics equal the CLI's errors and warnings.
    (let ((findings (st-check-json nil)))
      (st-ok (st-first-invalid-line findings) "the test file loads: this test wants one that does not")
      (st-check-diags "diagnostics on open"))

    ;; 1b. The hover: plain text when eglot renders no markdown (without
    ;; markdown-mode it asks for ["plaintext"]), so no ** or ` marks.
    (let* ((hover (jsonrpc-request server :textDocument/hover
                                   (list :textDocument (eglot--TextDocumentIdentifier)
                                         :position (list :line 0 :character 1))))
           (contents (plist-get hover :contents))
           (plain (not (fboundp 'gfm-view-mode))))
      (st-ok (equal (plist-get contents :kind) (if plain "plaintext" "markdown"))
             "hover kind %S, want %s" (plist-get contents :kind) (if plain "plaintext" "markdown"))
      (when plain
        (st-ok (not (string-match-p "\\*\\*\\|`" (plist-get contents :value)))
               "plain-text hover has markdown marks: %S" (plist-get contents :value)))
      (st-log "ok   hover is %s%s" (plist-get contents :kind) (if plain " (no markdown marks)" "")))

    ;; 2. Lenses of a file that does not load.
    (st-ok (bound-and-true-p sessionls-lens-mode) "sessionls-lens-mode is off")
    (st-check-lenses "lenses on open" (st-expect nil) server)

    ;; 3. Make it load with edits in place: an unknown role becomes
    ;; "user", a line missing its } gets one.
    (dolist (f (st-check-json nil))
      (save-excursion
        (goto-char (point-min))
        (forward-line (1- (plist-get f :line)))
        (let ((eol (line-end-position)))
          (cond ((and (equal (plist-get f :code) "invalid-record")
                      (search-forward "\"role\":\"system\"" eol t))
                 (replace-match "\"role\":\"user\"" t t))
                ((and (member (plist-get f :code) st-refusals)
                      (not (equal (plist-get f :code) "invalid-record"))
                      (/= (char-before eol) ?}))
                 (goto-char eol)
                 (insert "}"))))))
    (st-check-diags "diagnostics after fixing the invalid lines")
    (st-ok (not (st-first-invalid-line (st-check-json nil))) "the file still does not load")
    (let* ((bj (st-budget-json nil))
           (units (plist-get bj :units)))
      (st-ok (>= (length units) 2) "budget json has fewer than 2 units: %S" bj)
      (st-check-lenses "lenses of the loading file" (st-expect nil) server)

      ;; 4. sessionls-set-budget refuses what is not a positive integer.
      (dolist (bad '("abc" "-5" "1.5" -3))
        (st-ok (condition-case nil (progn (sessionls-set-budget bad) nil) (user-error t))
               "sessionls-set-budget accepted %S" bad))
      (st-log "ok   sessionls-set-budget refuses abc, -5, 1.5, -3")

      ;; 5. A budget that keeps the newest half of the units.
      (let* ((mid (/ (length units) 2))
             (n (+ (cl-loop for u in (nthcdr mid units) sum (plist-get u :chars))
                   (/ (plist-get (nth (1- mid) units) :chars) 2)))
             (cutoff (plist-get (st-budget-json n) :cutoff)))
        (st-ok cutoff "sessionls budget --max-chars %d gives no cutoff" n)
        (st-ok (= (plist-get cutoff :firstKeptLine) (plist-get (nth mid units) :startLine))
               "CLI cutoff at line %s, want %s" (plist-get cutoff :firstKeptLine)
               (plist-get (nth mid units) :startLine))
        (st-ok (= (sessionls-set-budget (number-to-string n)) n) "sessionls-set-budget did not return %d" n)
        (st-check-lenses (format "sessionls-set-budget %d: cutoff lens on line %d"
                                 n (plist-get cutoff :firstKeptLine))
                         (st-expect n) server)
        (st-check-diags "diagnostics with the budget" n)

        ;; 5b. C-u M-x sessionls-set-budget clears the budget; setting it
        ;; again brings the cutoff back.
        (let ((current-prefix-arg '(4)))
          (call-interactively #'sessionls-set-budget))
        (st-ok (null sessionls-budget) "sessionls-budget is %S after C-u M-x sessionls-set-budget" sessionls-budget)
        (st-check-lenses "lenses after C-u M-x sessionls-set-budget (cleared)" (st-expect nil) server)
        (st-check-diags "diagnostics after clearing the budget" nil)
        (st-ok (= (sessionls-set-budget n) n) "sessionls-set-budget did not return %d" n)
        (st-check-lenses "lenses with the budget set again" (st-expect n) server)
        (st-check-diags "diagnostics with the budget set again" n)

        ;; 5c. The trimmed lines are faded (eglot shows the Unnecessary tag).
        (if (st-fades-p)
            (st-check-faded n)
          (st-log "skip the fade check: this eglot does not advertise the Unnecessary diagnostic tag"))

        ;; 5d. A unit lens sets "budget to here": its chars from newest, so
        ;; the cut lands on it. Run with C-c C-l on its line (one lens
        ;; there: not line 1, not the cut), and through its click keymap.
        (let* ((cut (plist-get (plist-get (st-budget-json n) :cutoff) :firstKeptLine))
               (from-newest (let ((acc 0))
                              (nreverse (mapcar (lambda (u) (setq acc (+ acc (plist-get u :chars))))
                                                (reverse units)))))
               (picks (cl-loop for u in units for fn in from-newest for i from 0
                               when (and (> i 0) (/= (plist-get u :startLine) cut))
                               collect (cons (plist-get u :startLine) fn))))
          (st-ok (>= (length picks) 2) "fewer than 2 unit lenses to run: %S" units)
          (st-ok (eq (lookup-key sessionls-jsonl-mode-map (kbd "C-c C-l")) #'sessionls-lens-run)
                 "C-c C-l is not sessionls-lens-run")
          (let ((pick (car (last picks))))
            (goto-char (point-min))
            (forward-line (1- (car pick)))
            (call-interactively #'sessionls-lens-run)
            (st-ok (eql sessionls-budget (cdr pick)) "budget %S after C-c C-l on the unit lens of line %d, want its %d from newest"
                   sessionls-budget (car pick) (cdr pick))
            (st-ok (= (plist-get (plist-get (st-budget-json (cdr pick)) :cutoff) :firstKeptLine) (car pick))
                   "budget %d does not cut at line %d" (cdr pick) (car pick))
            (st-check-lenses (format "lenses after C-c C-l on the unit lens of line %d (budget to here: %d)"
                                     (car pick) (cdr pick))
                             (st-expect (cdr pick)) server)
            (st-check-diags "diagnostics after the unit lens" (cdr pick)))
          ;; The other pick, clicked: the lens text's mouse-1 binding.
          (let* ((pick (car picks))
                 (ov (cl-find-if (lambda (o) (= (line-number-at-pos (overlay-start o)) (car pick)))
                                 sessionls--lens-overlays))
                 (text (and ov (overlay-get ov 'before-string)))
                 (click (and text (lookup-key (get-text-property 0 'keymap text) [mouse-1]))))
            (st-ok (commandp click) "the lens text on line %d has no mouse-1 command: %S" (car pick) text)
            (goto-char (point-min))
            (forward-line (1- (car pick)))
            (funcall-interactively click (list 'mouse-1 (list (selected-window) (point) '(0 . 0) 0)))
            (st-ok (eql sessionls-budget (cdr pick)) "budget %S after clicking the unit lens of line %d, want %d"
                   sessionls-budget (car pick) (cdr pick))
            (st-check-lenses (format "lenses after clicking the unit lens of line %d (budget %d)" (car pick) (cdr pick))
                             (st-expect (cdr pick)) server)))

        ;; 5e. On the cut line (the ✂ lens and a unit lens), C-c C-l asks
        ;; which, and the ✂ lens asks for a budget.
        (let* ((cur (plist-get (plist-get (st-budget-json sessionls-budget) :cutoff) :firstKeptLine))
               (asked nil))
          (goto-char (point-min))
          (forward-line (1- cur))
          (cl-letf (((symbol-function 'completing-read)
                     (lambda (_prompt coll &rest _)
                       (cl-find-if (lambda (c) (string-prefix-p "✂" c)) coll)))
                    ((symbol-function 'read-string)
                     (lambda (&rest _) (setq asked t) (number-to-string n))))
            (call-interactively #'sessionls-lens-run))
          (st-ok asked "the ✂ lens asked for no budget")
          (st-ok (eql sessionls-budget n) "budget %S after the ✂ lens, want %d" sessionls-budget n)
          (st-check-lenses (format "lenses after running the ✂ lens (budget %d)" n) (st-expect n) server))

        ;; 5f. A budget too small for the newest unit: the ✂ lens names the
        ;; least budget that works, the newest unit's chars.
        (sessionls-set-budget 10)
        (let* ((want (st-expect 10))
               (newest (car (last units)))
               (tail (format "; the least budget that works is %s" (st-thousands (plist-get newest :chars)))))
          (st-ok (cl-find-if (lambda (p) (and (= (car p) (plist-get newest :startLine)) (string-suffix-p tail (cdr p)))) want)
                 "no ✂ lens ending %S expected:\n%s" tail (st-show-want want))
          (st-check-lenses (format "lenses with budget 10 (too small; the least that works is %d)" (plist-get newest :chars))
                           want server))
        (st-check-diags "diagnostics with budget 10" 10)
        (sessionls-set-budget n)
        (st-check-lenses "lenses with the budget back" (st-expect n) server)
        (st-check-diags "diagnostics with the budget back" n)

        ;; 6. Edit: non-BMP text after non-ASCII text on line 1, then
        ;; break the line (drop its closing brace), then fix it.
        (goto-char (point-min))
        (end-of-line)
        (st-ok (looking-back "\"}" 2) "line 1 does not end with \"}")
        (backward-char 2)
        (insert "é🙂")
        (let ((want (st-expect n)))
          (st-ok (st-wait-for (lambda () (st-lenses-match (st-overlay-lenses) want)))
                 "lens overlays after typing differ.\nwant:\n%s\ngot:\n%s"
                 (st-show-want want) (st-show-lenses (st-overlay-lenses))))
        (st-log "ok   lens overlays follow an edit with é🙂 (after-change refresh)")
        (st-check-diags "diagnostics after typing é🙂" n)
        (end-of-line)
        (delete-char -1)
        (st-check-diags "diagnostics after deleting the } of line 1" n)
        (let ((f (cl-find-if (lambda (f) (and (= (plist-get f :line) 1) (member (plist-get f :code) st-refusals)))
                             (st-check-json n "broken.jsonl")))
              (len16 (cl-loop for c across (st-line-text 1) sum (if (> c #xFFFF) 2 1))))
          (st-ok f "the CLI reports no refused line 1 in the broken text")
          (st-ok (= (plist-get f :column) (1+ len16))
                 "the CLI puts the error at UTF-16 column %s, want the end of line 1 (%d)"
                 (plist-get f :column) (1+ len16))
          (st-log "ok   new %s on line 1 at UTF-16 column %d (after é🙂)" (plist-get f :code) (1+ len16)))
        (st-check-lenses "lenses of the broken file" (st-expect n) server)
        (insert "}")
        (st-check-diags "diagnostics after restoring the }" n)
        (st-ok (not (st-first-invalid-line (st-check-json n))) "line 1 still invalid after the fix")
        (st-check-lenses "lenses after the fix" (st-expect n) server)

        ;; 6b. No editor budget, then a sessionls.toml written outside
        ;; Emacs: the lenses follow it with no edit in the buffer (the
        ;; server republishes diagnostics, the lenses' cue in eglot 1.9).
        (sessionls-set-budget nil)
        (st-check-lenses "lenses with the budget cleared" (st-expect nil) server)
        (let* ((toml (expand-file-name "sessionls.toml" (file-name-directory st-file)))
               (b (+ n 7))
               (want (st-expect b)))
          (with-temp-file toml (insert (format "budget = %d\n" b)))
          (st-ok (st-wait-for (lambda () (st-lenses-match (st-overlay-lenses) want)))
                 "lenses after sessionls.toml got budget %d outside Emacs (no edit).\nwant:\n%s\ngot:\n%s"
                 b (st-show-want want) (st-show-lenses (st-overlay-lenses)))
          (st-log "ok   lenses follow a sessionls.toml written outside Emacs (budget %d), with no edit" b)
          (delete-file toml)
          (st-ok (st-wait-for (lambda () (st-lenses-match (st-overlay-lenses) (st-expect nil))))
                 "lenses after sessionls.toml was deleted:\n%s" (st-show-lenses (st-overlay-lenses))))
        (sessionls-set-budget n)

        ;; 7. A new server started with sessionls-budget and
        ;; sessionls-checks: they travel as initializationOptions.
        (eglot-shutdown server)
        (st-ok (st-wait-for (lambda () (not (eglot-current-server)))) "eglot did not shut down")
        (let* ((n3 (1+ n))
               (sessionls-budget n3)
               (sessionls-checks '("orphan-tool-result")))
          (setq st-disabled sessionls-checks)
          (eglot-ensure)
          (run-hooks 'post-command-hook)
          (st-ok (st-wait-for (lambda () (eglot-current-server))) "eglot started no second server")
          (let ((server2 (eglot-current-server)))
            (st-ok (not (eq server2 server)) "the old server is still current")
            (let ((want (st-check-diags (format "diagnostics from a server started with budget %d, checks %S"
                                                n3 sessionls-checks)
                                        n3)))
              (st-ok (not (cl-find-if (lambda (d) (string-match-p "orphan-tool-result" (nth 3 d))) want))
                     "the CLI still reports orphan-tool-result")
              (st-ok (cl-find-if (lambda (d) (string-match-p "budget-cutoff" (nth 3 d))) want)
                     "no budget-cutoff finding with budget %d" n3))
            (st-check-lenses (format "lenses from initializationOptions budget %d" n3)
                             (st-expect n3) server2)

            ;; 8. sessionls-tokens: a server started with it sends unit
            ;; lenses unresolved; the ones on screen are resolved and show
            ;; the tokens of `sessionls budget --tokens'.
            (eglot-shutdown server2)
            (st-ok (st-wait-for (lambda () (not (eglot-current-server)))) "eglot did not shut down")
            (setq st-disabled nil)
            (let ((sessionls-tokens t)
                  (units (plist-get (st-cli "budget" "--tokens" "--isolated" "--format" "json"
                                            "--max-chars" "9007199254740992" (st-buffer-to-file "tokens.jsonl"))
                                    :units)))
              (st-ok (and units (cl-every (lambda (u) (numberp (plist-get u :tokens))) units))
                     "budget --tokens gave no token counts: %S" units)
              (eglot-ensure)
              (run-hooks 'post-command-hook)
              (st-ok (st-wait-for (lambda () (eglot-current-server))) "eglot started no server with sessionls-tokens")
              (goto-char (point-min))
              (let ((want (mapcar (lambda (u)
                                    (cons (plist-get u :startLine)
                                          (format "%s chars · ≈ %s tokens · "
                                                  (st-thousands (plist-get u :chars)) (st-thousands (plist-get u :tokens)))))
                                  units)))
                (st-ok (st-wait-for
                        (lambda ()
                          (let ((got (st-overlay-lenses)))
                            (cl-every (lambda (w) (cl-find-if (lambda (g) (and (= (car g) (car w))
                                                                                 (string-prefix-p (cdr w) (cdr g))))
                                                               got))
                                      want))))
                       "with sessionls-tokens, unit lenses lack their tokens.\nwant prefixes:\n%s\ngot:\n%s"
                       (st-show-lenses want) (st-show-lenses (st-overlay-lenses)))
                (st-log "ok   sessionls-tokens: %d unit lenses resolved with budget --tokens's counts" (length want)))
              ;; 8b. The ✂ lens and M-x sessionls-status add the kept
              ;; units' tokens: budget --tokens's cutoff.keptTokens.
              (let* ((bj (st-cli "budget" "--tokens" "--isolated" "--format" "json"
                                 "--max-chars" (number-to-string sessionls-budget) (st-buffer-to-file "tokens.jsonl")))
                     (c (plist-get bj :cutoff))
                     (prefix (format "✂ budget %s · keeps " (st-thousands sessionls-budget)))
                     (part (and c (format " · %s chars · ≈ %s tokens · "
                                          (st-thousands (plist-get c :keptChars)) (st-thousands (plist-get c :keptTokens))))))
                (st-ok (and c (numberp (plist-get c :keptTokens))) "budget --tokens at %d gave no kept tokens: %S" sessionls-budget bj)
                (st-ok (st-wait-for
                        (lambda ()
                          (cl-find-if (lambda (g) (and (= (car g) (plist-get c :firstKeptLine))
                                                       (string-prefix-p prefix (cdr g))
                                                       (string-search part (cdr g))))
                                      (st-overlay-lenses))))
                       "with sessionls-tokens, no ✂ lens %S…%S on line %d:\n%s"
                       prefix part (plist-get c :firstKeptLine) (st-show-lenses (st-overlay-lenses)))
                (let ((said (sessionls-status))
                      (want (format "budget %s (from editor setting sessionls.budget) keeps %s chars · ≈ %s tokens from line %d"
                                    (st-thousands sessionls-budget) (st-thousands (plist-get c :keptChars))
                                    (st-thousands (plist-get c :keptTokens)) (plist-get c :firstKeptLine))))
                  (st-ok (equal said want) "sessionls-status says %S, want %S" said want)
                  (st-log "ok   sessionls-tokens: the ✂ lens and sessionls-status give budget --tokens's kept tokens (%s)" said))))))))))

;;;; The context map

(defun st-page-facts (path)
  "The units, total chars and first kept line a map page at PATH states."
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8))
      (insert-file-contents path))
    (let ((num (lambda (re)
                 (goto-char (point-min))
                 (and (re-search-forward re nil t) (string-to-number (match-string 1))))))
      (list :units (funcall num "<span id=\"units\" hidden data-units=\"\\([0-9]+\\)\"")
            :total (funcall num "id=\"totals\"[^>]* data-total-chars=\"\\([0-9]+\\)\"")
            :cut (funcall num "<div id=\"cutoff\" class=\"[^\"]*\" data-first-kept-line=\"\\([0-9]+\\)\"")))))

(defun st-check-page (path what)
  "PATH's page states what `sessionls budget --max-chars 600' says of the buffer."
  (let* ((bj (st-budget-json 600))
         (facts (st-page-facts path))
         (cutoff (plist-get bj :cutoff)))
    (st-ok cutoff "%s: budget 600 does not cut the map's file" what)
    (st-ok (equal (plist-get facts :units) (length (plist-get bj :units)))
           "%s: the page has %S units, budget --format json %d" what (plist-get facts :units) (length (plist-get bj :units)))
    (st-ok (equal (plist-get facts :total) (plist-get bj :totalChars))
           "%s: the page totals %S chars, budget --format json %S" what (plist-get facts :total) (plist-get bj :totalChars))
    (st-ok (equal (plist-get facts :cut) (plist-get cutoff :firstKeptLine))
           "%s: the page keeps from line %S, budget --format json from line %S"
           what (plist-get facts :cut) (plist-get cutoff :firstKeptLine))
    (plist-get facts :total)))

(defun st-check-map ()
  "M-x sessionls-map writes the page and opens it (the opener stubbed).
From the server: the buffer's text and budget, an unsaved edit included;
with no server, `sessionls map' on the saved file (an unsaved buffer is
refused); with no opener, the message gives the page's path."
  (let ((path (expand-file-name "map.jsonl" st-tmp))
        (opened nil))
    (copy-file (expand-file-name "../../testdata/sessions/units.jsonl" (getenv "SESSIONLS_EL_DIR")) path t)
    (find-file path)
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (st-ok (st-wait-for (lambda () (eglot-current-server))) "no eglot server for map.jsonl")
    (sessionls-set-budget 600)
    (let ((sessionls-map-open-function (lambda (p) (push p opened))))
      (let ((page (call-interactively #'sessionls-map)))
        (st-ok (equal opened (list page)) "sessionls-map opened %S, want %S" opened page)
        (let ((total0 (st-check-page page "M-x sessionls-map")))
          ;; An unsaved edit: the server's page is the buffer's text.
          (goto-char (point-min))
          (delete-region (point) (line-end-position))
          (insert "{\"role\":\"user\",\"content\":\"rewritten in the buffer, not saved\"}")
          (let ((total1 (st-check-page (sessionls-map) "after an unsaved edit")))
            (st-ok (not (equal total0 total1)) "the edit did not change the total: a vacuous check"))))
      ;; A server without sessionls/contextMap (MethodNotFound): the CLI
      ;; is asked instead, which refuses the unsaved buffer.
      (let ((orig (symbol-function 'jsonrpc-request)))
        (cl-letf (((symbol-function 'jsonrpc-request)
                   (lambda (conn method params &rest args)
                     (if (eq method :sessionls/contextMap)
                         (signal 'jsonrpc-error '("request id=1 failed:" (jsonrpc-error-code . -32601)
                                                  (jsonrpc-error-message . "method not found")))
                       (apply orig conn method params args)))))
          (st-ok (condition-case err (progn (sessionls-map) nil)
                   (user-error (string-match-p "unsaved changes" (error-message-string err))))
                 "a server without sessionls/contextMap: sessionls-map did not fall back to the CLI")))
      ;; No server: unsaved is refused; saved, the CLI maps the file.
      (let ((server (eglot-current-server)))
        (eglot-shutdown server))
      (st-ok (st-wait-for (lambda () (not (eglot-current-server)))) "eglot did not shut down")
      (setq opened nil)
      (st-ok (condition-case err (progn (sessionls-map) nil)
               (user-error (string-match-p "unsaved changes" (error-message-string err))))
             "without a server, sessionls-map did not refuse an unsaved buffer")
      (st-ok (null opened) "an unsaved buffer's map was opened: %S" opened)
      (save-buffer)
      (st-check-page (sessionls-map) "no server, saved: sessionls map FILE"))
    ;; No opener: the message says where the page is.
    (let* ((said nil)
           (sessionls-map-open-function (lambda (_) (error "No usable browser found")))
           (page (cl-letf (((symbol-function 'message)
                            (lambda (fmt &rest args) (setq said (apply #'format fmt args)))))
                   (sessionls-map))))
      (st-ok (and said (string-match-p (regexp-quote (concat "written to " page)) said)
                  (string-match-p "No usable browser found" said))
             "without an opener, sessionls-map said %S" said))
    (st-log "ok   M-x sessionls-map: pages from the server (as opened, after an edit) and from sessionls map (no server) agree with budget --format json; without an opener the path is given")))

;;;; A byte order mark Emacs hides

(defun st-file-bytes (path)
  "The bytes of the file at PATH, as a unibyte string."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally path)
    (buffer-string)))

(defun st-bom-diag-p ()
  "Whether flymake shows the server's diagnostic for a hidden BOM."
  (cl-find-if (lambda (d) (string-match-p "byte order mark" (nth 3 d))) (st-flymake-diags)))

(defun st-check-bom ()
  "A file that begins with a UTF-8 BOM, which Emacs hides (it reads it as
the coding system utf-8-with-signature): the server reports it on line 1,
and its quick fix (sessionls.removeDiskBOM) leaves the file on disk
without it, every other byte kept, the buffer unmodified and in step
with the file (no supersession prompt), and a later save does not write
the BOM back."
  (let* ((path (expand-file-name "bom.jsonl" st-tmp))
         (body (concat (st-file-bytes (expand-file-name "../../testdata/sessions/units.jsonl" (getenv "SESSIONLS_EL_DIR")))
                       (encode-coding-string "{\"role\":\"user\",\"content\":\"é🙂 ✂ 设计\"}\n" 'utf-8)))
         (bytes (concat "\357\273\277" body)))
    (let ((coding-system-for-write 'no-conversion))
      (write-region bytes nil path nil 'silent))
    (find-file path)
    (st-ok (coding-system-get buffer-file-coding-system :bom)
           "Emacs read %s as %s, not as UTF-8 with a BOM: the test proves nothing" path buffer-file-coding-system)
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (st-ok (st-wait-for (lambda () (eglot-current-server))) "no eglot server for bom.jsonl")
    (st-ok (st-wait-for #'st-bom-diag-p) "no diagnostic for the BOM Emacs hides: %S" (st-flymake-diags))
    (st-log "ok   a BOM Emacs hides (%s) is reported: %s" buffer-file-coding-system (nth 3 (st-bom-diag-p)))
    ;; Any question Emacs would ask (the file changed on disk; save over
    ;; it?) fails the test instead of waiting on stdin.
    (cl-letf (((symbol-function 'ask-user-about-supersession-threat)
               (lambda (f) (error "Emacs asks whether to edit %s, changed on disk" f)))
              ((symbol-function 'yes-or-no-p) (lambda (q) (error "Emacs asks: %s" q)))
              ((symbol-function 'y-or-n-p) (lambda (q) (error "Emacs asks: %s" q))))
      (goto-char (point-min))
      (eglot-code-actions (point-min) (point-min) "quickfix" t)
      (st-ok (st-wait-for (lambda () (not (st-bom-diag-p)))) "the BOM diagnostic stayed after the quick fix: %S" (st-flymake-diags))
      (st-ok (equal (st-file-bytes path) body) "after the quick fix the file on disk is not its bytes without the BOM:\n%S" (st-file-bytes path))
      (st-ok (not (buffer-modified-p)) "the quick fix left the buffer modified")
      (st-ok (verify-visited-file-modtime) "after the quick fix the buffer is out of step with the file (Emacs would ask before the next edit)")
      (st-ok (not (coding-system-get buffer-file-coding-system :bom))
             "after the quick fix the buffer still saves with a BOM (%s)" buffer-file-coding-system)
      ;; An edit, undone by hand, and a save: the file keeps every byte and
      ;; gets no BOM back.
      (goto-char (point-max))
      (insert "x")
      (delete-char -1)
      (set-buffer-modified-p t)
      (save-buffer)
      (st-ok (equal (st-file-bytes path) body) "a save after the quick fix changed the file:\n%S" (st-file-bytes path))
      ;; The server answers in order: once this is answered, it has
      ;; checked the saved file (didSave) and published what it found.
      (jsonrpc-request (eglot-current-server) :sessionls/status (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri)))
      (accept-process-output nil 0.2)
      (flymake-start)
      (st-ok (not (st-bom-diag-p)) "the BOM diagnostic came back after a save: %S" (st-flymake-diags)))
    (st-log "ok   the BOM quick fix: the file loses exactly its 3 BOM bytes (%d kept), the buffer is unmodified and in step with the file, a save writes no BOM back"
            (length body))
    (let ((s (eglot-current-server))) (when s (eglot-shutdown s)))
    (kill-buffer)))

;;;; Claude Code and Codex CLI transcripts

(defun st-status ()
  "The server's sessionls/status of the current buffer."
  (jsonrpc-request (eglot-current-server) :sessionls/status
                   (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri))))

(defun st-check-dialects ()
  "A Claude Code and a Codex CLI transcript where those tools keep them
\(~/.claude/projects/P/S.jsonl, ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl),
with no setup beyond what .jsonl files get (issue 21): each is read in its
dialect, flymake shows what `sessionls check --format json' of the file
says, a lens shows the last turn's context as `sessionls budget --format
json' reports it, and the unsafe quick fix for the call without a result,
picked from eglot's menu, adds the line `check --fix --unsafe-fixes' adds."
  (let ((corpus (expand-file-name "../../testdata/dialects/" (getenv "SESSIONLS_EL_DIR"))))
    (dolist (c `(("claude-code" ,(concat corpus "claude-code/missing-result-tail.jsonl") ".claude/projects/p/s.jsonl")
                 ("codex" ,(concat corpus "codex/missing-output.jsonl") "sessions/2026/11/30/rollout-x.jsonl")))
      (let* ((dialect (nth 0 c))
             (path (expand-file-name (nth 2 c) st-tmp)))
        (make-directory (file-name-directory path) t)
        (copy-file (nth 1 c) path t)
        (find-file path)
        (eglot-ensure)
        (run-hooks 'post-command-hook)
        (st-ok (st-wait-for (lambda () (eglot-current-server))) "no eglot server for %s" path)
        (let* ((st (st-status))
               (budget (plist-get st :budget))
               (findings (apply #'st-cli "check" "--format" "json"
                                (append (and (numberp budget) (list "--budget" (number-to-string budget)))
                                        (and st-disabled (list "--disable" (string-join st-disabled ",")))
                                        (list path))))
               (want (st-expected-diags findings))
               (missing (plist-get (cl-find-if (lambda (f) (equal (plist-get f :code) "missing-tool-result")) findings) :line)))
          (st-ok (equal (plist-get st :dialect) dialect) "%s is read as %s (%s), want %s"
                 path (plist-get st :dialect) (plist-get st :dialectWhy) dialect)
          (st-ok missing "%s: check reports no missing-tool-result: the quick fix check would prove nothing" path)
          (st-ok (st-wait-for (lambda () (equal (st-flymake-diags) want)))
                 "%s: flymake diagnostics differ.\nwant (from sessionls check):\n%s\ngot:\n%s"
                 path (st-show-diags want) (st-show-diags (st-flymake-diags)))
          (st-log "ok   %s (%s): %d diagnostics equal sessionls check's" (nth 2 c) dialect (length want))
          ;; The usage lens of the last turn.
          (let* ((ctx (plist-get (st-cli "budget" "--format" "json" path) :context))
                 (title (and ctx (format "context %s / %s tokens · %d%% · +%s output"
                                         (st-thousands (plist-get ctx :tokens)) (st-thousands (plist-get ctx :window))
                                         (plist-get ctx :fill) (st-thousands (plist-get ctx :outputTokens))))))
            (st-ok (and ctx (plist-get ctx :window)) "%s: budget --format json has no context with a window" path)
            (st-ok (member (cons (plist-get ctx :line) title) (sessionls-lenses))
                   "%s: no lens %S on line %d: %S" path title (plist-get ctx :line) (sessionls-lenses))
            (st-ok (st-wait-for (lambda () (member (cons (plist-get ctx :line) title) (st-overlay-lenses))))
                   "%s: the lens %S is not shown on line %d: %S" path title (plist-get ctx :line) (st-overlay-lenses))
            (st-log "ok   %s: usage lens on line %d: %s" (nth 2 c) (plist-get ctx :line) title))
          ;; The unsafe quick fix, from eglot's menu.
          (let* ((before (split-string (buffer-string) "\n"))
                 (fixed-copy (expand-file-name "dialect-fixed.jsonl" st-tmp))
                 (fixed (progn (copy-file path fixed-copy t)
                               (call-process st-bin nil nil nil "check" "--fix" "--unsafe-fixes" fixed-copy)
                               (with-temp-buffer (insert-file-contents fixed-copy) (split-string (buffer-string) "\n"))))
                 (picked nil)
                 (pick (lambda (items)
                         (cl-find-if (lambda (it)
                                       (let ((d (aref (or (plist-get (cdr it) :diagnostics) [nil]) 0)))
                                         (equal (plist-get d :code) "missing-tool-result")))
                                     items))))
            (goto-char (point-min))
            (forward-line (1- missing))
            ;; What the menu holds; with one quick fix eglot applies it
            ;; without a menu.
            (setq picked (car (funcall pick (mapcar (lambda (a) (cons (plist-get a :title) a))
                                                    (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix")))))
            (cl-letf (((symbol-function 'x-popup-menu)
                       (lambda (_pos menu) (let ((it (funcall pick (cdr (nth 1 menu))))) (setq picked (car it)) (cdr it))))
                      ((symbol-function 'completing-read)
                       (lambda (_prompt items &rest _) (let ((it (funcall pick items))) (setq picked (car it)) (car it)))))
              (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t))
            (st-ok picked "%s: eglot's menu offered no quick fix for missing-tool-result" path)
            (let* ((after (split-string (buffer-string) "\n"))
                   (added (cl-loop for i from 0 below (length after)
                                   unless (equal (nth i after) (nth i before)) return i)))
              (st-ok (= (length after) (1+ (length before))) "%s: the quick fix (%s) did not add one line" path picked)
              (st-ok (and added (>= added missing) (member (nth added after) fixed))
                     "%s: the quick fix added %S, not a line of check --fix --unsafe-fixes" path (and added (nth added after)))
              (st-ok (equal (nthcdr (1+ added) after) (nthcdr added before)) "%s: the quick fix changed more than one line" path)
              (when (= (length fixed) (length after))
                (st-ok (equal after fixed) "%s: after the quick fix the buffer is not check --fix --unsafe-fixes's text" path)))
            (st-ok (st-wait-for (lambda () (not (cl-find-if (lambda (d) (and (= (nth 0 d) missing) (string-match-p "\\[missing-tool-result\\]" (nth 3 d))))
                                                            (st-flymake-diags)))))
                   "%s: missing-tool-result on line %d stayed after its quick fix" path missing)
            (st-log "ok   %s: the unsafe quick fix (%s) adds the result check --fix --unsafe-fixes adds" (nth 2 c) picked)))
        (set-buffer-modified-p nil)
        (let ((s (eglot-current-server))) (when s (eglot-shutdown s)))
        (kill-buffer)))))

(let ((status 1))
  (condition-case err
      (progn
        (st-run)
        (st-check-map)
        (st-check-bom)
        (st-check-dialects)
        (st-log "ALL OK: %d checks" st-checks)
        (setq status 0))
    (error (st-log "ERROR after %d checks: %s" st-checks (error-message-string err))))
  (ignore-errors (let ((s (eglot-current-server))) (when s (eglot-shutdown s))))
  (kill-emacs status))

;;; test.el ends here
