"""How people write a secret into a note, per language: labels, sentences, table headers.

Each language gives the credential labels it uses and the sentence shapes a memory takes when
someone pastes a secret into it (a label and a colon, a sentence, the value on the line under
its label, a table column, ``user / password``), plus ordinary sentences for context and
clean sentences that talk about secrets without holding one.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Language:
    code: str
    password: tuple[str, ...]
    token: tuple[str, ...]
    api_key: tuple[str, ...]
    inline: tuple[str, ...]
    prose: tuple[str, ...]
    prev_line: tuple[str, ...]
    table: tuple[str, str]
    slash: tuple[str, ...]
    labelled: tuple[str, ...]
    bare: tuple[str, ...]
    context: tuple[str, ...]
    clean: tuple[str, ...] = field(default=())


LANGUAGES: dict[str, Language] = {
    "en": Language(
        "en",
        password=("password", "passwd", "root password", "DB password"),
        token=("token", "access token", "bot token"),
        api_key=("API key", "api key", "secret key", "client secret"),
        inline=("{Label}: {v}", "{label} = {v}", "- {Label}: `{v}`"),
        prose=(
            "The staging root {label} is {v}",
            "{Label} for the staging DB: {v}",
            "The {label} we use for the build bot is {v}, set by ops last week.",
            "FYI the {label} is now {v} after the rotation.",
        ),
        prev_line=("{Label} for the staging DB:\n{v}", "Staging {label} below:\n\n    {v}"),
        table=("service", "{Label}"),
        slash=(
            "Login for the staging router: admin / {v}",
            "Grafana credentials are ops / {v}",
        ),
        labelled=("Deploy bot {label}: {v}", "The {label} for the nightly export is {v}"),
        bare=("Use {v} for the nightly export job.", "Paste this into the CI settings: {v}"),
        context=(
            "Deploys go through the staging cluster first.",
            "The user asked to keep this handy for the weekly release.",
            "Ops owns the staging environment; ask in #plant-a-ops.",
            "The nightly export runs at 02:00 and takes about 40 minutes.",
        ),
    ),
    "zh-Hant": Language(
        "zh-Hant",
        password=("密碼", "資料庫密碼", "root 密碼"),
        token=("權杖", "令牌", "存取權杖", "token"),
        api_key=("API 金鑰", "金鑰", "密鑰", "API key"),
        inline=("{label}：{v}", "{label} {v}", "{label}: {v}"),
        prose=(
            "測試環境資料庫的{label}是 {v}",
            "staging 機器的 root {label}為 {v}，上週換過。",
            "{label}改成 {v} 了，記一下。",
        ),
        prev_line=("測試環境資料庫{label}如下：\n{v}", "{label}：\n{v}"),
        table=("服務", "{label}"),
        slash=("路由器登入：admin / {v}", "Grafana 帳號密碼 ops / {v}"),
        labelled=("部署機器人的{label}：{v}", "夜間匯出用的{label}是 {v}"),
        bare=("夜間匯出工作用 {v}。", "把這個貼到 CI 設定：{v}"),
        context=(
            "部署一律先上 staging 叢集。",
            "使用者要我記下來，每週發版要用。",
            "staging 環境由維運負責，有問題到 #plant-a-ops 問。",
            "夜間匯出在 02:00 執行，大約 40 分鐘。",
        ),
    ),
    "zh-Hans": Language(
        "zh-Hans",
        password=("密码", "数据库密码", "root 密码"),
        token=("令牌", "访问令牌", "token"),
        api_key=("API 密钥", "密钥", "秘钥", "API key"),
        inline=("{label}：{v}", "{label} {v}", "{label}={v}"),
        prose=(
            "测试环境数据库的{label}是 {v}",
            "staging 服务器的 root {label}为 {v}，上周换过。",
            "{label}改成 {v} 了，记一下。",
        ),
        prev_line=("测试环境数据库{label}如下：\n{v}", "{label}：\n{v}"),
        table=("服务", "{label}"),
        slash=("路由器登录：admin / {v}", "Grafana 账号密码 ops / {v}"),
        labelled=("部署机器人的{label}：{v}", "夜间导出用的{label}是 {v}"),
        bare=("夜间导出任务用 {v}。", "把这个贴到 CI 配置里：{v}"),
        context=(
            "部署一律先上 staging 集群。",
            "用户让我记下来，每周发版要用。",
            "staging 环境由运维负责，有问题到 #plant-a-ops 问。",
            "夜间导出在 02:00 执行，大约 40 分钟。",
        ),
    ),
    "ja": Language(
        "ja",
        password=("パスワード", "暗証番号", "root パスワード"),
        token=("トークン", "アクセストークン"),
        api_key=("APIキー", "API キー", "シークレットキー", "シークレット"),
        inline=("{label}：{v}", "{label}: {v}"),
        prose=(
            "ステージングDBの{label}は {v} です。",
            "本番サーバーの{label}は「{v}」です。",
            "{label}を {v} に変更しました。",
        ),
        prev_line=("ステージングDBの{label}：\n{v}", "{label}は以下：\n{v}"),
        table=("サービス", "{label}"),
        slash=("ルーターのログイン: admin / {v}",),
        labelled=("デプロイ用ボットの{label}：{v}", "夜間エクスポートの{label}は {v} です。"),
        bare=("夜間エクスポートには {v} を使う。", "CI の設定にこれを貼る：{v}"),
        context=(
            "デプロイは必ずステージングから。",
            "ユーザーが毎週のリリースで使うので残しておいてと言った。",
            "ステージング環境は運用チームの担当。",
            "夜間エクスポートは 02:00 に走り、約 40 分かかる。",
        ),
    ),
    "ko": Language(
        "ko",
        password=("비밀번호", "패스워드", "암호"),
        token=("토큰", "액세스 토큰"),
        api_key=("API 키", "시크릿 키", "시크릿"),
        inline=("{label}: {v}", "{label} : {v}"),
        prose=(
            "스테이징 DB {label}는 {v} 입니다.",
            "운영 서버 root {label}: {v}",
            "{label}를 {v} 로 바꿨어요.",
        ),
        prev_line=("스테이징 DB {label}:\n{v}", "{label} 아래 참고:\n{v}"),
        table=("서비스", "{label}"),
        slash=("라우터 로그인: admin / {v}",),
        labelled=("배포 봇 {label}: {v}", "야간 내보내기용 {label}은 {v} 입니다."),
        bare=("야간 내보내기 작업에는 {v} 를 사용한다.", "CI 설정에 이것을 붙여넣기: {v}"),
        context=(
            "배포는 항상 스테이징 클러스터부터.",
            "사용자가 매주 릴리스에 쓰니 기억해 달라고 했다.",
            "스테이징 환경은 운영팀 담당이다.",
            "야간 내보내기는 02:00에 실행되고 약 40분 걸린다.",
        ),
    ),
    "de": Language(
        "de",
        password=("Passwort", "Kennwort", "Root-Passwort"),
        token=("Token", "Zugriffstoken"),
        api_key=("API-Schlüssel", "Schlüssel", "Client-Secret"),
        inline=("{Label}: {v}", "{Label} = {v}"),
        prose=(
            "Das {Label} für die Staging-DB ist {v}",
            "{Label} für die Staging-Datenbank: {v}",
            "Das neue {Label} lautet {v}",
        ),
        prev_line=("{Label} für die Staging-DB:\n{v}",),
        table=("Dienst", "{Label}"),
        slash=("Anmeldung am Router: admin / {v}",),
        labelled=("{Label} des Deploy-Bots: {v}", "Der {Label} für den nächtlichen Export ist {v}"),
        bare=("Für den nächtlichen Export {v} verwenden.", "In die CI-Einstellungen einfügen: {v}"),
        context=(
            "Deployments laufen immer zuerst über Staging.",
            "Der Nutzer möchte das für das wöchentliche Release parat haben.",
            "Staging gehört dem Ops-Team.",
            "Der nächtliche Export läuft um 02:00 und dauert etwa 40 Minuten.",
        ),
    ),
    "es": Language(
        "es",
        password=("contraseña", "clave", "contraseña de root"),
        token=("token", "token de acceso"),
        api_key=("clave de API", "clave secreta", "API key"),
        inline=("{Label}: {v}", "{Label} = {v}"),
        prose=(
            "La {label} de la base de staging es {v}",
            "{Label} para la base de datos de staging: {v}",
            "La nueva {label} es {v}, la cambió ops ayer.",
        ),
        prev_line=("{Label} de la base de staging:\n{v}",),
        table=("servicio", "{label}"),
        slash=("Acceso al router: admin / {v}",),
        labelled=(
            "{Label} del bot de despliegue: {v}",
            "El {label} para la exportación nocturna es {v}",
        ),
        bare=(
            "Usar {v} para la exportación nocturna.",
            "Pegar esto en la configuración de CI: {v}",
        ),
        context=(
            "Los despliegues pasan primero por staging.",
            "El usuario pidió tener esto a mano para la release semanal.",
            "Staging es del equipo de operaciones.",
            "La exportación nocturna corre a las 02:00 y tarda unos 40 minutos.",
        ),
    ),
    "fr": Language(
        "fr",
        password=("mot de passe", "mdp", "mot de passe root"),
        token=("jeton", "jeton d'accès", "token"),
        api_key=("clé d'API", "clé secrète", "clé API"),
        inline=("{Label} : {v}", "{Label}: {v}"),
        prose=(
            "Le {label} de la base de staging est {v}",
            "{Label} pour la base de staging : {v}",
            "Le nouveau {label} est {v} depuis la rotation.",
        ),
        prev_line=("{Label} de la base de staging :\n{v}",),
        table=("service", "{label}"),
        slash=("Connexion au routeur : admin / {v}",),
        labelled=(
            "{Label} du bot de déploiement : {v}",
            "Le {label} pour l'export de nuit est {v}",
        ),
        bare=("Utiliser {v} pour l'export de nuit.", "Coller ceci dans la config CI : {v}"),
        context=(
            "Les déploiements passent d'abord par staging.",
            "L'utilisateur veut garder ça sous la main pour la release hebdo.",
            "Staging appartient à l'équipe ops.",
            "L'export de nuit tourne à 02:00 et dure environ 40 minutes.",
        ),
    ),
    "ru": Language(
        "ru",
        password=("пароль", "пароль root", "пароль от БД"),
        token=("токен", "токен доступа"),
        api_key=("API-ключ", "ключ API", "секретный ключ"),
        inline=("{Label}: {v}", "{Label} — {v}"),
        prose=(
            "{Label} от staging базы: {v}",
            "{Label} для базы staging — {v}",
            "Новый {label} {v}, поменяли вчера.",
        ),
        prev_line=("{Label} от staging базы:\n{v}",),
        table=("сервис", "{label}"),
        slash=("Вход на роутер: admin / {v}",),
        labelled=("{Label} бота деплоя: {v}", "{Label} для ночной выгрузки — {v}"),
        bare=("Для ночной выгрузки использовать {v}.", "Вставить в настройки CI: {v}"),
        context=(
            "Деплой всегда сначала идёт на staging.",
            "Пользователь попросил держать это под рукой для еженедельного релиза.",
            "Staging принадлежит команде эксплуатации.",
            "Ночная выгрузка запускается в 02:00 и идёт около 40 минут.",
        ),
    ),
    "pt": Language(
        "pt",
        password=("senha", "senha do banco", "senha root"),
        token=("token", "token de acesso"),
        api_key=("chave de API", "chave secreta", "API key"),
        inline=("{Label}: {v}", "{Label} = {v}"),
        prose=(
            "A {label} do banco de staging é {v}",
            "{Label} do banco de staging: {v}",
            "A nova {label} é {v}, trocada ontem.",
        ),
        prev_line=("{Label} do banco de staging:\n{v}",),
        table=("serviço", "{label}"),
        slash=("Login do roteador: admin / {v}",),
        labelled=("{Label} do bot de deploy: {v}", "O {label} da exportação noturna é {v}"),
        bare=("Usar {v} na exportação noturna.", "Colar isto na configuração do CI: {v}"),
        context=(
            "Os deploys passam primeiro pelo staging.",
            "O usuário pediu para guardar isso para a release semanal.",
            "O staging é do time de operações.",
            "A exportação noturna roda às 02:00 e leva uns 40 minutos.",
        ),
    ),
}

ORDER = tuple(LANGUAGES)
