FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_ENV=production
WORKDIR /app
# The locked dependencies first (a layer that changes only with the lock), every one
# checked against its hash; then the project itself without resolving anything again.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
# The whole project (what is left out is in .dockerignore): every app in
# settings.PROJECT_APPS is in the image, whichever were added since.
COPY . .
RUN pip install --no-cache-dir --no-deps .
RUN useradd --create-home app && mkdir -p /app/var/metrics && chown -R app /app/var
USER app
EXPOSE 8000
