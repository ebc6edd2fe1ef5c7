;;; sessionls.el --- Agent session files (.jsonl) with the sessionls language server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, tools
;; URL: https://github.com/sessionls/sessionls

;;; Commentary:

;; `sessionls-jsonl-mode' is a major mode for JSON Lines agent session
;; files, derived from `js-json-mode' where it exists (Emacs 29+) and from
;; `js-mode' before.  It is registered with eglot, which starts
;; `sessionls serve' for it: diagnostics arrive through flymake.
;;
;; sessionls also sends code lenses (per-unit character counts and the
;; context-budget cutoff).  eglot does not display code lenses, so
;; `sessionls-lens-mode' (on by default in `sessionls-jsonl-mode' buffers
;; that eglot manages) asks for them and shows each as a line of text
;; above the line it belongs to.  Click a lens, or type C-c C-l
;; (`sessionls-lens-run') on its line, to run it: a unit lens sets the
;; budget to that unit's "from newest" (budget to here), the Σ or ✂ lens
;; asks for a budget.
;;
;; Set-up:
;;   (require 'eglot)   ; built in since Emacs 29, from ELPA before
;;   (add-to-list 'load-path "/path/to/sessionls/editors/emacs")
;;   (require 'sessionls)
;;   (add-hook 'sessionls-jsonl-mode-hook #'eglot-ensure)
;; Then M-x sessionls-set-budget to see where a context budget cuts
;; (C-u M-x sessionls-set-budget clears it).

;;; Code:

(require 'js)
(require 'cl-lib)
(require 'subr-x)
(require 'jsonrpc)
(declare-function eglot-current-server "eglot")
(declare-function eglot--current-server-or-lose "eglot")
(declare-function eglot--TextDocumentIdentifier "eglot")
(declare-function eglot-managed-p "eglot")
(declare-function eglot--signal-textDocument/didChange "eglot")
(declare-function eglot--uri-to-path "eglot")
(defvar eglot-server-programs)
(defvar eglot-managed-mode-hook)

(defgroup sessionls nil
  "Agent session files checked by the sessionls language server."
  :group 'languages
  :prefix "sessionls-")

(defcustom sessionls-program "sessionls"
  "The sessionls executable (a name looked up in `exec-path', or a path)."
  :type 'string)

(defcustom sessionls-program-args '("serve")
  "Arguments that make `sessionls-program' a language server on stdio."
  :type '(repeat string))

(defcustom sessionls-budget nil
  "Context budget in characters sent to the server when it starts, or nil.
Change it in a running server with `sessionls-set-budget'."
  :type '(choice (const :tag "None" nil) (integer :tag "Characters")))

;; BEGIN GENERATED: finding codes (go generate ./analysis)
(defconst sessionls-codes
  '(("invalid-json" . "A line that JSON.parse rejects: the runtime refuses the whole file.")
    ("invalid-record" . "A line that parses but is not a valid session message: the runtime refuses the whole file.")
    ("orphan-tool-result" . "A tool result that no earlier assistant message declares.")
    ("missing-tool-result" . "A declared tool call that never gets its result.")
    ("duplicate-call-id" . "A tool call id declared a second time.")
    ("swept-message" . "A message swept into a tool-call unit that is not one of its results.")
    ("file-too-large" . "A file longer than the runtime can read into one string.")
    ("deep-nesting" . "A message nested so deeply that node's JSON.stringify may overflow its stack, and trimContext would throw.")
    ("budget-cutoff" . "Where the character budget cuts the session.")
    ("budget-exceeded" . "A budget for which trimContext throws: the newest unit does not fit, or the session is empty.")
    ("truncated-record" . "A record cut short by an interrupted append: the runtime refuses the whole file.")
    ("interleaved-record" . "Pieces of appends made at the same time, interleaved at node's 524,288-byte write boundaries: the runtime refuses the whole file.")
    ("zero-filled" . "A run of NUL bytes where the file system lost data: the runtime refuses the whole file.")
    ("split-record" . "A record split over several lines by raw line breaks in a string: the runtime refuses the whole file.")
    ("codex-resume-refused" . "A Codex CLI rollout that codex refuses to resume as a whole.")
    ("codex-skipped-line" . "A Codex CLI rollout line that codex's loader skips: its item is lost on resume.")
    ("codex-compaction" . "Where a Codex CLI session was compacted: the model is sent a summary instead of the history above.")
    ("broken-parent-chain" . "A Claude Code record whose parentUuid names no record in the file: resuming loses every message before it.")
    ("duplicate-uuid" . "Two Claude Code records with the same uuid.")
    ("malformed-record" . "A Claude Code record of a known type whose shape Claude Code does not write."))
  "The finding codes of sessionls, each with what it means.
Any of them can go in `sessionls-checks'.")
;; END GENERATED: finding codes

(defcustom sessionls-checks nil
  "Finding codes to turn off, sent as initializationOptions.checks.
For example (\"swept-message\" \"missing-tool-result\").  The codes, and
what each means, are in `sessionls-codes' (and `sessionls rules' prints
them)."
  :type '(repeat string))

(defcustom sessionls-files nil
  "Globs naming the files the server treats as sessions, or nil.
Sent as initializationOptions.files; the server's default is (\"**/*.jsonl\")."
  :type '(repeat string))

(defcustom sessionls-tokens nil
  "Whether the unit lenses and the hover show token counts beside chars.
Sent as initializationOptions.tokens.  The server then sends unit lenses
without their text, and `sessionls-lens-mode' resolves the ones on
screen (codeLens/resolve): counting tokens costs more than chars."
  :type 'boolean)

(defcustom sessionls-tokenizer nil
  "The encoding token counts use: \"o200k_base\", \"cl100k_base\", or nil.
nil: the document's sessionls.toml (`tokenizer'), else o200k_base.
Sent as initializationOptions.tokenizer."
  :type '(choice (const :tag "From sessionls.toml, else o200k_base" nil)
                 (const "o200k_base") (const "cl100k_base")))

(defcustom sessionls-show-lenses t
  "Whether `sessionls-lens-mode' starts with eglot in session buffers."
  :type 'boolean)

(defcustom sessionls-events-buffer-size 0
  "Size in characters of the sessionls server's jsonrpc events buffer.
This is `eglot-events-buffer-size' for the sessionls connection alone.
0, the default, logs no messages: a session's whole text travels in
one message, and jsonrpc pretty-prints every message it logs (5 s of
a 15 MB session's opening, minutes for 50 MB).  Set it to a size (or
nil, unbounded) to read the traffic in `eglot-events-buffer'."
  :type '(choice (const :tag "No log" 0) (const :tag "Unbounded" nil) integer))

(defface sessionls-lens-face
  '((t :inherit shadow :height 0.9))
  "Face of the code lens lines `sessionls-lens-mode' shows.")

;;;; The major mode

(defalias 'sessionls--parent-mode
  (if (fboundp 'js-json-mode) 'js-json-mode 'js-mode)
  "The mode `sessionls-jsonl-mode' derives from.")

;;;###autoload
(define-derived-mode sessionls-jsonl-mode sessionls--parent-mode "JSONL"
  "Major mode for JSON Lines agent session files, one message per line.
Long lines are the norm here, so lines are not wrapped."
  (setq-local truncate-lines t))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.jsonl\\'" . sessionls-jsonl-mode))

(define-key sessionls-jsonl-mode-map (kbd "C-c C-l") #'sessionls-lens-run)
(define-key sessionls-jsonl-mode-map (kbd "C-c C-b") #'sessionls-status)
;; js-mode binds M-. to `js-find-symbol' (etags); here definitions come from
;; the server through xref (a tool result's call, a call's result).
(define-key sessionls-jsonl-mode-map (kbd "M-.") #'xref-find-definitions)

;;;; eglot

(defun sessionls--initialization-options (_server)
  "The initializationOptions object sent to the server."
  (or (append (and sessionls-budget (list :budget sessionls-budget))
              (and sessionls-checks (list :checks (vconcat sessionls-checks)))
              (and sessionls-files (list :files (vconcat sessionls-files)))
              (and sessionls-tokens (list :tokens t))
              (and sessionls-tokenizer (list :tokenizer sessionls-tokenizer)))
      ;; nil would be sent as null; an empty object is a hash table.
      (make-hash-table :size 1)))

(defun sessionls--contact (&optional _interactive)
  "The eglot contact for sessionls, read from the customizations at start."
  (append (cons sessionls-program sessionls-program-args)
          (list :initializationOptions #'sessionls--initialization-options)))

(defun sessionls--register ()
  "Tell eglot how to serve `sessionls-jsonl-mode' buffers."
  (add-to-list 'eglot-server-programs
               '((sessionls-jsonl-mode :language-id "jsonl") . sessionls--contact)))

;;;; Budget

(defun sessionls--server ()
  "The eglot server of the current buffer, or an error that says why."
  (require 'eglot)
  (or (and (derived-mode-p 'sessionls-jsonl-mode) (eglot-current-server))
      (user-error "No sessionls server here: open a .jsonl file and M-x eglot")))

(defun sessionls--clears-budget-p (value)
  "Whether VALUE asks for no budget: nil, 0, \"off\", \"none\" or \"0\"."
  (or (null value)
      (and (integerp value) (= value 0))
      (and (stringp value)
           (let ((s (downcase (string-trim value))))
             (or (member s '("off" "none"))
                 (string-match-p "\\`[0_,]+\\'" s))))))

(defun sessionls--thousands (n)
  "N with thousands separators: 12345 -> \"12,345\"."
  (let ((s (number-to-string n)))
    (while (string-match "\\([0-9]\\)\\([0-9]\\{3\\}\\)\\(,\\|\\'\\)" s)
      (setq s (replace-match "\\1,\\2\\3" t nil s)))
    s))

(defun sessionls--parse-budget (value)
  "VALUE (a number or a string such as \"8,000\") as a positive integer.
Signal a `user-error' when it is not one."
  (let ((n (cond ((integerp value) value)
                 ((and (stringp value)
                       (string-match-p "\\`[0-9][0-9_,]*\\'" (string-trim value)))
                  (string-to-number (replace-regexp-in-string "[_,]" "" (string-trim value))))
                 (t nil))))
    (unless (and (integerp n) (> n 0))
      (user-error "A context budget is a positive whole number of characters, not %S" value))
    n))

;;;###autoload
(defun sessionls-set-budget (budget)
  "Set the context BUDGET (characters) of the current buffer's sessionls server.
The server then shows where the budget cuts: a cutoff lens on the first
kept line, and the lines above it faded.  BUDGET nil, \"off\", \"none\" or 0
clears it; interactively, a prefix argument (\\[universal-argument]) clears it."
  (interactive (list (if current-prefix-arg
                         nil
                       (read-string "Context budget (characters, or off to clear): "
                                    (and sessionls-budget (number-to-string sessionls-budget))))))
  (let ((n (if (sessionls--clears-budget-p budget) 0 (sessionls--parse-budget budget)))
        (server (sessionls--server)))
    (jsonrpc-request server :workspace/executeCommand
                     (list :command "sessionls.setBudget" :arguments (vector n)))
    (setq sessionls-budget (and (> n 0) n))
    (dolist (buf (buffer-list))
      (with-current-buffer buf
        (when (bound-and-true-p sessionls-lens-mode)
          (sessionls-lens-refresh))))
    (if (> n 0)
        (message "sessionls: context budget %s characters" (sessionls--thousands n))
      (message "sessionls: context budget cleared"))
    sessionls-budget))

;;;; Status

(defun sessionls--status-text (st)
  "The words of ST, the server's answer to sessionls/status.
\"12,345 chars · 42 messages · no budget\" or \"budget 8,000 (from
/repo/sessionls.toml:1:1) keeps 7,912 chars from line 12\"; with
`sessionls-tokens', the tokens follow the chars: \"12,345 chars · ≈
3,100 tokens · …\", \"… keeps 7,912 chars · ≈ 1,980 tokens from line
12\" (the figures of `sessionls budget --tokens')."
  (let* ((tok (lambda (n) (if (numberp n) (format " · ≈ %s tokens" (sessionls--thousands n)) "")))
         (budget (plist-get st :budget))
         (err (plist-get st :error))
         (tokerr (plist-get st :tokensError))
         (text
          (if (not (numberp budget))
              (format "%s chars%s · %d message%s · no budget%s"
                      (sessionls--thousands (plist-get st :totalChars)) (funcall tok (plist-get st :totalTokens))
                      (plist-get st :messages) (if (eql (plist-get st :messages) 1) "" "s")
                      (if (stringp err) (concat " · " err) ""))
            (concat (format "budget %s (from %s)" (sessionls--thousands budget)
                            (or (plist-get st :budgetSource) "?"))
                    (if (and (numberp (plist-get st :keptChars)) (not (stringp err)))
                        (format " keeps %s chars%s from line %d"
                                (sessionls--thousands (plist-get st :keptChars)) (funcall tok (plist-get st :keptTokens))
                                (plist-get st :firstKeptLine))
                      (format ": %s" (or err "no cutoff")))))))
    (if (stringp tokerr) (format "%s (tokens: %s)" text tokerr) text)))

;;;###autoload
(defun sessionls-status ()
  "Show the current buffer's context budget, its source and what it keeps.
The server's sessionls/status: the budget and its source (the editor
setting, or the line of the sessionls.toml that sets it), the kept
chars and the first kept line, and with `sessionls-tokens' the tokens.
Return the text."
  (interactive)
  (let* ((server (sessionls--server))
         (st (progn (sessionls--flush-changes)
                    (jsonrpc-request server :sessionls/status
                                     (list :uri (plist-get (eglot--TextDocumentIdentifier) :uri)))))
         (text (sessionls--status-text st)))
    (message "sessionls: %s" text)
    text))

;;;; The context map

(defcustom sessionls-map-open-function #'browse-url-of-file
  "Function of one argument, a file name, that opens the map's page.
It opens the page `sessionls-map' writes.  The default,
`browse-url-of-file', hands it to `browse-url' (xdg-open, or the browser
`browse-url-browser-function' names).  When it fails, the page's path
is shown for you to open."
  :type 'function)

(defun sessionls--map-path ()
  "Where the current buffer's context map page goes: one page per file."
  (let* ((name (or buffer-file-name (buffer-name)))
         (base (replace-regexp-in-string "[^[:alnum:]._-]" "_" (file-name-nondirectory name)))
         (dir (expand-file-name "sessionls-maps" temporary-file-directory)))
    (make-directory dir t)
    (expand-file-name (format "%s-%s.html" base (substring (secure-hash 'sha256 name) 0 8)) dir)))

(defun sessionls--map-from-server (server out)
  "Ask SERVER for the current buffer's map page and write it to OUT.
The request is sessionls/contextMap, with html true."
  (sessionls--flush-changes)
  (let* ((uri (plist-get (eglot--TextDocumentIdentifier) :uri))
         (res (jsonrpc-request server :sessionls/contextMap (list :uri uri :html t)))
         (html (plist-get res :html)))
    (unless (stringp html)
      (user-error "sessionls: the server answered sessionls/contextMap with no page"))
    (with-temp-buffer
      (insert html)
      (let ((coding-system-for-write 'utf-8-unix))
        (write-region nil nil out nil 'silent)))))

(defun sessionls--map-from-cli (out)
  "Run `sessionls map' on the current buffer's saved file, writing OUT."
  (let ((file buffer-file-name))
    (unless (and file (file-readable-p file))
      (user-error "sessionls: the buffer has no file and no sessionls server"))
    (when (buffer-modified-p)
      (user-error "sessionls: the buffer has unsaved changes and no sessionls server maps it: save it first"))
    (with-temp-buffer
      (let* ((args (append '("map")
                           (and sessionls-budget (list "--budget" (number-to-string sessionls-budget)))
                           (list "-o" out "--" (expand-file-name file))))
             (code (apply #'call-process sessionls-program nil (list t t) nil args)))
        ;; 1: the page is written, but the file does not load (it says so).
        (unless (memq code '(0 1))
          (user-error "sessionls: %s %s failed (%s): %s" sessionls-program
                      (string-join args " ") code (string-trim (buffer-string))))))))

;;;###autoload
(defun sessionls-map ()
  "Write the current buffer's context map and open it in the browser.
The page is the one `sessionls map' writes: where the context goes, by
role and tool name, and where the budget cuts.  The buffer's sessionls
server makes it from the buffer's text and budget (unsaved edits
included); without a server (or with one that does not know the
request), `sessionls map' is run on the saved file.
The page goes to a file under `temporary-file-directory', rewritten each
time, opened with `sessionls-map-open-function'.  Return its path."
  (interactive)
  (let ((out (sessionls--map-path))
        (server (and (derived-mode-p 'sessionls-jsonl-mode)
                     (require 'eglot nil t)
                     (eglot-current-server))))
    (if server
        (condition-case err
            (sessionls--map-from-server server out)
          (jsonrpc-error
           ;; A server older than the request: the CLI maps the saved file.
           (if (eql (alist-get 'jsonrpc-error-code (cddr err)) -32601)
               (sessionls--map-from-cli out)
             (signal (car err) (cdr err)))))
      (sessionls--map-from-cli out))
    (condition-case err
        (progn
          (funcall sessionls-map-open-function out)
          (message "sessionls: context map %s" out))
      (error
       (message "sessionls: context map written to %s (it could not be opened: %s; open it in a browser)"
                out (error-message-string err))))
    out))

;;;; Code lenses (eglot does not show them)

(defvar-local sessionls--lens-overlays nil
  "Overlays that show the current buffer's code lenses.")
(defvar-local sessionls--lens-timer nil
  "Idle timer of a pending lens refresh.")
(defvar-local sessionls--lens-generation 0
  "Bumped by each request, so that stale answers are dropped.")

(defun sessionls--flush-changes ()
  "Send eglot's pending didChange now, so that an answer sees every edit."
  (when (fboundp 'eglot--signal-textDocument/didChange)
    (eglot--signal-textDocument/didChange)))

(defun sessionls-lenses (&optional server)
  "Ask SERVER (default: the buffer's) for the code lenses, synchronously.
Return a list of (LINE . TITLE), LINE 1-based, in the server's order."
  (let* ((server (or server (sessionls--server)))
         (_ (sessionls--flush-changes))
         (lenses (jsonrpc-request server :textDocument/codeLens
                                  (list :textDocument (eglot--TextDocumentIdentifier)))))
    (sessionls--lens-pairs lenses)))

(defun sessionls--lens-entries (lenses)
  "LENSES (a JSON array of CodeLens) as a list of (LINE TITLE COMMAND).
COMMAND is the lens's Command object (a plist with :command and
:arguments)."
  (cl-loop for lens across (or lenses [])
           for command = (plist-get lens :command)
           for title = (plist-get command :title)
           when title
           collect (list (1+ (plist-get (plist-get (plist-get lens :range) :start) :line))
                         title command)))

(defun sessionls--lens-pairs (lenses)
  "LENSES (a JSON array of CodeLens) as a list of (LINE . TITLE)."
  (mapcar (lambda (e) (cons (nth 0 e) (nth 1 e))) (sessionls--lens-entries lenses)))

(defun sessionls--run-lens-command (command)
  "Run a lens's COMMAND (a Command plist).
sessionls.setBudget with an argument sets that budget (a unit lens:
budget to here); without one it asks for a budget, as
\\[sessionls-set-budget] does."
  (let ((name (plist-get command :command))
        (args (plist-get command :arguments)))
    (cond
     ((equal name "sessionls.setBudget")
      (if (and args (> (length args) 0))
          (sessionls-set-budget (aref args 0))
        (call-interactively #'sessionls-set-budget)))
     ((and (stringp name) (not (string-empty-p name)))
      (jsonrpc-request (sessionls--server) :workspace/executeCommand
                       (append (list :command name) (and args (list :arguments args)))))
     (t (user-error "This lens runs no command")))))

(defun sessionls--lens-keymap (command)
  "A keymap that runs COMMAND when its lens text is clicked."
  (let ((map (make-sparse-keymap))
        (run (lambda (event)
               (interactive "e")
               (let ((pos (posn-point (event-end event))))
                 (when pos
                   (with-current-buffer (window-buffer (posn-window (event-end event)))
                     (save-excursion
                       (goto-char pos)
                       (sessionls--run-lens-command command))))))))
    (define-key map [mouse-1] run)
    (define-key map [mouse-2] run)
    map))

(defun sessionls--lens-help (command)
  "The help-echo of a lens that runs COMMAND."
  (let ((args (plist-get command :arguments)))
    (if (and args (> (length args) 0))
        (format "mouse-1 or C-c C-l: set the context budget to %s (budget to here)"
                (sessionls--thousands (aref args 0)))
      "mouse-1 or C-c C-l: set the context budget")))

(defun sessionls-lens-run ()
  "Run the code lens on the current line.
A unit lens sets the budget to the unit's chars from newest, so that the
cut lands on it; the Σ or ✂ lens asks for a budget.  With several lenses
on the line, ask which."
  (interactive)
  (let* ((bol (line-beginning-position))
         (entries (cl-loop for ov in (overlays-in bol bol)
                           when (and (overlay-get ov 'sessionls-lens-commands)
                                     (= (overlay-start ov) bol))
                           append (cl-mapcar #'cons
                                             (overlay-get ov 'sessionls-lens)
                                             (overlay-get ov 'sessionls-lens-commands)))))
    (pcase (length entries)
      (0 (user-error "No sessionls lens on this line"))
      (1 (sessionls--run-lens-command (cdar entries)))
      (_ (let ((title (completing-read "Run lens: " (mapcar #'car entries) nil t)))
           (sessionls--run-lens-command (cdr (assoc title entries))))))))

(defun sessionls--lens-clear ()
  (mapc #'delete-overlay sessionls--lens-overlays)
  (setq sessionls--lens-overlays nil))

(defun sessionls--lens-overlay (lenses)
  "Put an overlay at point showing LENSES, a list of (TITLE COMMAND)."
  (let ((ov (make-overlay (point) (point))))
    (overlay-put ov 'sessionls-lens (mapcar #'car lenses))
    (overlay-put ov 'sessionls-lens-commands (mapcar #'cadr lenses))
    (overlay-put ov 'before-string
                 (concat
                  (mapconcat
                   (lambda (l)
                     (propertize (car l)
                                 'face 'sessionls-lens-face
                                 'mouse-face 'highlight
                                 'help-echo (sessionls--lens-help (cadr l))
                                 'keymap (sessionls--lens-keymap (cadr l))))
                   lenses
                   (propertize " | " 'face 'sessionls-lens-face))
                  (propertize "\n" 'face 'sessionls-lens-face)))
    (push ov sessionls--lens-overlays)
    ov))

(defun sessionls--lens-show (entries)
  "Show ENTRIES, a list of (LINE TITLE COMMAND), above their lines.
Each title is clickable: it runs its lens's command.
One pass over the buffer: the lines are visited in order, each reached
from the previous one (a `forward-line' from the top for every lens was
quadratic: 48 s for a 15 MB session)."
  (sessionls--lens-clear)
  (let ((groups nil))
    ;; (LINE . LENSES) in line order, the lenses of a line in their order.
    (dolist (e (sort (copy-sequence entries) (lambda (a b) (< (car a) (car b)))))
      (if (and groups (= (caar groups) (car e)))
          (push (cdr e) (cdar groups))
        (push (cons (car e) (list (cdr e))) groups)))
    (setq groups (nreverse groups))
    (save-excursion
      (save-restriction
        (widen)
        (goto-char (point-min))
        (let ((at 1))
          (catch 'end
            (dolist (g groups)
              (let ((line (car g)))
                (when (> line at)
                  (unless (zerop (forward-line (- line at)))
                    (throw 'end nil))
                  (setq at line))
                (when (= line at)
                  (sessionls--lens-overlay (reverse (cdr g))))))))))))

(defvar-local sessionls--lens-unresolved nil
  "Lenses the server sent without a command (token counts are on): unit
lenses, and the Σ or ✂ lens.  A hash table from 1-based line to the
list of its CodeLenses, resolved when shown.")

(defun sessionls--lens-add (line title command)
  "Add the lens (TITLE COMMAND) to the lenses shown on LINE."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (when (zerop (forward-line (1- line)))
        (let* ((old (cl-find-if (lambda (o) (overlay-get o 'sessionls-lens))
                                (overlays-in (point) (point))))
               (lenses (and old (cl-mapcar #'list (overlay-get old 'sessionls-lens)
                                           (overlay-get old 'sessionls-lens-commands)))))
          (when old
            (setq sessionls--lens-overlays (delq old sessionls--lens-overlays))
            (delete-overlay old))
          (sessionls--lens-overlay (append lenses (list (list title command)))))))))

(defun sessionls--lens-resolve-visible (&rest _)
  "Resolve the unresolved lenses on the lines the buffer's windows show.
Each is asked for once (codeLens/resolve); its answer is added to the
lenses of its line."
  (when-let ((pending sessionls--lens-unresolved)
             (server (and (fboundp 'eglot-current-server) (eglot-current-server))))
    (let ((buf (current-buffer))
          (gen sessionls--lens-generation)
          (windows (or (get-buffer-window-list (current-buffer) nil t) (list (selected-window)))))
      (dolist (w windows)
        (let ((from (line-number-at-pos (window-start w)))
              ;; window-end may be stale before redisplay: a screenful
              ;; past the start covers it.
              (to (+ (line-number-at-pos (window-start w)) (max (window-body-height w) 1))))
          (cl-loop for line from from to to
                   for lenses = (gethash line pending)
                   when lenses
                   do (remhash line pending)
                   (dolist (lens lenses)
                     (let ((line line))
                       (jsonrpc-async-request
                        server :codeLens/resolve lens
                        :success-fn (lambda (res)
                                      (when (buffer-live-p buf)
                                        (with-current-buffer buf
                                          (when-let ((cmd (and (= gen sessionls--lens-generation)
                                                               (plist-get res :command))))
                                            (sessionls--lens-add line (plist-get cmd :title) cmd)))))
                        :error-fn #'ignore
                        :timeout-fn #'ignore)))))))))

(defun sessionls-lens-refresh ()
  "Ask the server for the lenses of the current buffer and show them."
  (interactive)
  (when-let ((server (and (fboundp 'eglot-current-server) (eglot-current-server))))
    (let ((buf (current-buffer))
          (gen (cl-incf sessionls--lens-generation)))
      (sessionls--flush-changes)
      (jsonrpc-async-request
       server :textDocument/codeLens
       (list :textDocument (eglot--TextDocumentIdentifier))
       :success-fn (lambda (lenses)
                     (when (buffer-live-p buf)
                       (with-current-buffer buf
                         (when (= gen sessionls--lens-generation)
                           (sessionls--lens-show (sessionls--lens-entries lenses))
                           ;; With token counts on, unit lenses come
                           ;; unresolved: resolve those on screen now,
                           ;; the rest as they scroll into view.
                           (let ((pending (make-hash-table)))
                             (cl-loop for lens across (or lenses [])
                                      unless (plist-get lens :command)
                                      ;; A line may hold two: the ✂ lens and
                                      ;; its unit's, in the server's order.
                                      do (let ((line (1+ (plist-get (plist-get (plist-get lens :range) :start) :line))))
                                           (puthash line (append (gethash line pending) (list lens)) pending)))
                             (setq sessionls--lens-unresolved
                                   (and (> (hash-table-count pending) 0) pending)))
                           (sessionls--lens-resolve-visible)))))
       :error-fn #'ignore
       :timeout-fn #'ignore))))

(defun sessionls--lens-schedule (&rest _)
  "Refresh the lenses once Emacs has been idle for a moment."
  (when (timerp sessionls--lens-timer)
    (cancel-timer sessionls--lens-timer))
  (let ((buf (current-buffer)))
    (setq sessionls--lens-timer
          (run-with-idle-timer 0.5 nil
                               (lambda ()
                                 (when (buffer-live-p buf)
                                   (with-current-buffer buf
                                     (setq sessionls--lens-timer nil)
                                     (sessionls-lens-refresh))))))))

(define-minor-mode sessionls-lens-mode
  "Show sessionls code lenses as lines of text above the lines they count."
  :lighter nil
  (if sessionls-lens-mode
      (progn
        (add-hook 'after-change-functions #'sessionls--lens-schedule nil t)
        (add-hook 'window-scroll-functions #'sessionls--lens-resolve-visible nil t)
        (add-hook 'after-save-hook #'sessionls-lens-refresh nil t)
        ;; Not now: eglot runs its managed-mode hook before it sends
        ;; didOpen, and the server cannot count a document it has not seen.
        (let ((buf (current-buffer)))
          (run-with-timer 0 nil (lambda ()
                                  (when (buffer-live-p buf)
                                    (with-current-buffer buf
                                      (when sessionls-lens-mode
                                        (sessionls-lens-refresh))))))))
    (remove-hook 'after-change-functions #'sessionls--lens-schedule t)
    (remove-hook 'window-scroll-functions #'sessionls--lens-resolve-visible t)
    (remove-hook 'after-save-hook #'sessionls-lens-refresh t)
    (when (timerp sessionls--lens-timer)
      (cancel-timer sessionls--lens-timer))
    (sessionls--lens-clear)))

(defun sessionls--maybe-lenses ()
  "Turn `sessionls-lens-mode' on or off with eglot in session buffers.
Also sizes the server's events buffer (`sessionls-events-buffer-size'):
this hook runs before eglot sends the document."
  (when (derived-mode-p 'sessionls-jsonl-mode)
    (when-let ((server (and (eglot-managed-p) (eglot-current-server))))
      (setf (jsonrpc--events-buffer-scrollback-size server) sessionls-events-buffer-size))
    (sessionls-lens-mode (if (and sessionls-show-lenses (eglot-managed-p)) 1 -1))))

(defun sessionls--diagnostics-arrived (uri)
  "Refresh the lenses of the buffer visiting URI, if it shows them.
The server publishes diagnostics again when anything they depend on
changes, an edit or a sessionls.toml changed outside Emacs alike; eglot
1.9 has no workspace/codeLens/refresh, so this is the lenses' cue too."
  (when-let ((path (ignore-errors (eglot--uri-to-path uri)))
             (buf (find-buffer-visiting path)))
    (with-current-buffer buf
      (when sessionls-lens-mode
        (sessionls--lens-schedule)))))

;;;; A byte order mark Emacs hides

(defun sessionls--disk-bom-removed (arguments)
  "Revisit the file of ARGUMENTS ([URI]) the server removed a BOM from.
Emacs reads a UTF-8 byte order mark as the coding system
utf-8-with-signature and hides it; the server reports it (the runtime
refuses the file) and its quick fix, the command
sessionls.removeDiskBOM, rewrites the file on disk without it, only
while the rest is the buffer's text.  The buffer is then reverted:
Emacs reads the file again as plain UTF-8, so the buffer is in step with
the file (no \"changed on disk\" question at the next edit) and a save
does not write the BOM back."
  (when-let* ((uri (and (sequencep arguments) (> (length arguments) 0) (elt arguments 0)))
              (path (and (stringp uri) (ignore-errors (eglot--uri-to-path uri))))
              (buf (find-buffer-visiting path)))
    (with-current-buffer buf
      (unless (buffer-modified-p)
        (revert-buffer t t t)))))

(with-eval-after-load 'eglot
  (sessionls--register)
  (cl-defmethod eglot-execute-command :after (_server command arguments)
    (when (equal (format "%s" command) "sessionls.removeDiskBOM")
      (sessionls--disk-bom-removed arguments)))
  (add-hook 'eglot-managed-mode-hook #'sessionls--maybe-lenses)
  (cl-defmethod eglot-handle-notification :after
    (_server (_method (eql textDocument/publishDiagnostics)) &key uri &allow-other-keys)
    (sessionls--diagnostics-arrived uri)))

(provide 'sessionls)
;;; sessionls.el ends here
