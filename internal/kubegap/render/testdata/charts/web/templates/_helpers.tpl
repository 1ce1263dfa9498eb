{{- define "web.fullname" -}}
{{ .Release.Name }}-web
{{- end -}}
